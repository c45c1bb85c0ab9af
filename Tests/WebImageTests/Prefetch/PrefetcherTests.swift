import Foundation
import Testing
@testable import WebImage

/// SDWebImage's prefetcher behaviours (SDWebImagePrefetcherTests), against a test manager
/// with controllable delays and failures.
@Suite struct PrefetcherTests {
    /// The delay of a load that only a cancellation may end: longer than any wait of these
    /// tests (30 s at most), so it is still running whenever they act.
    static let outlasting = Duration.seconds(60).scaled

    static func urls(_ count: Int, prefix: String = "img") -> [URL] {
        (0..<count).map { URL(string: "https://example.test/\(prefix)\($0).png")! }
    }

    @Test func prefetchingThreeURLsReportsProgressOneTwoThreeThenCompletion() async {
        let prefetcher = Prefetcher(manager: TestImageManager())
        let recorder = PrefetchRecorder()
        prefetcher.prefetch(urls: Self.urls(3), progress: recorder.progress, completion: recorder.completion)
        #expect(await recorder.completed() == .completion(3, 0))
        #expect(recorder.events == [.progress(1, 3), .progress(2, 3), .progress(3, 3), .completion(3, 0)])
        #expect(prefetcher.runningListCount == 0)
    }

    @Test func failedURLsCountAsFinishedAndSkipped() async {
        let bad = URL(string: "https://example.test/img1.png")!
        let manager = TestImageManager { url in
            TestImageManager.Plan(failure: url == bad ? .invalidDownloadStatusCode(404) : nil)
        }
        let result = await Prefetcher(manager: manager).prefetch(urls: Self.urls(3))
        #expect(result == PrefetchResult(finished: 3, skipped: 1, total: 3))
        #expect(result.loaded == 2)
    }

    @Test func theLoadHandlerGetsEachURLWithTheManagersResultBeforeTheListCompletes() async {
        let urls = Self.urls(3)
        let bad = urls[1]
        let manager = TestImageManager { url in
            TestImageManager.Plan(failure: url == bad ? .invalidDownloadStatusCode(404) : nil)
        }
        let seen = LockedValue<[URL: Result<ImageLoadResult, WebImageError>]>([:])
        let prefetcher = Prefetcher(manager: manager) { url, result in
            seen.withLock { $0[url] = result }
        }
        let result = await prefetcher.prefetch(urls: urls)
        #expect(result == PrefetchResult(finished: 3, skipped: 1, total: 3))
        let outcomes = seen.withLock { $0 }
        #expect(Set(outcomes.keys) == Set(urls))
        #expect((try? outcomes[urls[0]]?.get())?.data == Data([1, 2, 3]))
        #expect((try? outcomes[urls[2]]?.get())?.url == urls[2])
        guard case .failure(.invalidDownloadStatusCode(404)) = outcomes[bad] else {
            Issue.record("the failed URL's result was \(String(describing: outcomes[bad]))")
            return
        }
    }

    @Test func anEmptyListCompletesWithZerosBeforePrefetchReturns() async {
        let manager = TestImageManager()
        let prefetcher = Prefetcher(manager: manager)
        let recorder = PrefetchRecorder()
        prefetcher.prefetch(urls: [], progress: recorder.progress, completion: recorder.completion)
        #expect(recorder.events == [.completion(0, 0)])
        #expect(await prefetcher.prefetch(urls: []) == PrefetchResult(finished: 0, skipped: 0, total: 0))
        #expect(manager.loadCount == 0)
        #expect(prefetcher.runningListCount == 0)
    }

    /// A review's finding: from a task already cancelled, the list started its loads and
    /// cancelled them at once. Now none starts, and every URL is skipped; the manager's own
    /// `async` load (the protocol's form, which this manager does not replace) likewise.
    @Test func aTaskCancelledBeforehandStartsNoLoad() async {
        let manager = TestImageManager()
        let prefetcher = Prefetcher(manager: manager)
        let outcome = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let prefetched = await prefetcher.prefetch(urls: Self.urls(3))
            let loaded: Result<ImageLoadResult, WebImageError>
            do throws(WebImageError) {
                loaded = .success(try await manager.loadImage(with: Self.urls(1)[0], options: [], context: ImageContext(), progress: nil))
            } catch {
                loaded = .failure(error)
            }
            return (prefetched, loaded)
        }.value
        #expect(outcome.0 == PrefetchResult(finished: 3, skipped: 3, total: 3))
        guard case .failure(.cancelled) = outcome.1 else {
            Issue.record("the load gave \(outcome.1)")
            return
        }
        #expect(manager.loadCount == 0)
    }

    @Test func cancellingMidPrefetchReportsTheRestAsSkippedAndCompletesOnce() async throws {
        let urls = Self.urls(8)
        let fast = Set(urls.prefix(2))
        let manager = TestImageManager { url in TestImageManager.Plan(delay: fast.contains(url) ? .zero : Self.outlasting) }
        let prefetcher = Prefetcher(manager: manager, maxConcurrentPrefetchCount: 4)
        let recorder = PrefetchRecorder()
        let token = prefetcher.prefetch(urls: urls, progress: recorder.progress, completion: recorder.completion)
        #expect(await recorder.wait { $0 == .progress(2, 8) } != nil)
        #expect(await waitUntil(.seconds(30)) { manager.running >= 4 })
        let started = ContinuousClock.now
        token.cancel()
        token.cancel()
        #expect(await recorder.completed() == .completion(8, 6))
        // A sixth of the slow loads' delay, which is what would otherwise end them.
        #expect(ContinuousClock.now - started < LoaderTesting.endBound.scaled)
        try await Task.sleep(for: .milliseconds(50))
        #expect(recorder.completions.count == 1)
        #expect(recorder.events.last == .completion(8, 6))
        // The four slow loads holding slots were cancelled; the last two never started.
        #expect(manager.cancelCount == 4)
        #expect(manager.loadCount == 6)
        #expect(manager.running == 0)
        #expect(prefetcher.runningListCount == 0)
    }

    @Test func twoListsRunIndependently() async {
        let slow = Self.urls(3, prefix: "slow")
        let manager = TestImageManager { url in
            TestImageManager.Plan(delay: slow.contains(url) ? Self.outlasting : .milliseconds(5),
                                  failure: url.lastPathComponent == "quick1.png" ? .badImageData("test") : nil)
        }
        let prefetcher = Prefetcher(manager: manager, maxConcurrentPrefetchCount: 6)
        let first = PrefetchRecorder(), second = PrefetchRecorder()
        let slowToken = prefetcher.prefetch(urls: slow, progress: first.progress, completion: first.completion)
        prefetcher.prefetch(urls: Self.urls(4, prefix: "quick"), progress: second.progress, completion: second.completion)
        #expect(await second.completed() == .completion(4, 1))
        #expect(second.events.prefix(4) == [.progress(1, 4), .progress(2, 4), .progress(3, 4), .progress(4, 4)])
        #expect(first.events.isEmpty)
        #expect(prefetcher.runningListCount == 1)
        slowToken.cancel()
        #expect(await first.completed() == .completion(3, 3))
        #expect(second.completions.count == 1)
    }

    @Test func cancelPrefetchingEndsEveryList() async {
        let manager = TestImageManager { _ in TestImageManager.Plan(delay: Self.outlasting) }
        let prefetcher = Prefetcher(manager: manager)
        let first = PrefetchRecorder(), second = PrefetchRecorder()
        prefetcher.prefetch(urls: Self.urls(5, prefix: "a"), completion: first.completion)
        prefetcher.prefetch(urls: Self.urls(2, prefix: "b"), completion: second.completion)
        prefetcher.cancelPrefetching()
        #expect(await first.completed() == .completion(5, 5))
        #expect(await second.completed() == .completion(2, 2))
        #expect(manager.running == 0)
        #expect(prefetcher.runningListCount == 0)
    }

    @Test func concurrencyNeverExceedsTheLimitAcrossLists() async {
        var generator = SplitMix64(seed: 42)
        let delays = Dictionary(uniqueKeysWithValues: (Self.urls(20, prefix: "a") + Self.urls(20, prefix: "b")).map {
            ($0, Duration.milliseconds(Int.random(in: 1...8, using: &generator)))
        })
        let manager = TestImageManager { url in TestImageManager.Plan(delay: delays[url] ?? .zero) }
        let prefetcher = Prefetcher(manager: manager)
        #expect(prefetcher.maxConcurrentPrefetchCount == 3)
        async let first = prefetcher.prefetch(urls: Self.urls(20, prefix: "a"))
        async let second = prefetcher.prefetch(urls: Self.urls(20, prefix: "b"))
        let results = await [first, second]
        #expect(results.map(\.loaded) == [20, 20])
        #expect(manager.maxRunning == 3)

        let wider = TestImageManager { url in TestImageManager.Plan(delay: delays[url] ?? .zero) }
        let widerPrefetcher = Prefetcher(manager: wider)
        widerPrefetcher.maxConcurrentPrefetchCount = 5
        _ = await widerPrefetcher.prefetch(urls: Self.urls(20, prefix: "a"))
        #expect(wider.maxRunning == 5)
    }

    @Test func loadsUseLowPriorityUnlessToldOtherwise() async {
        let manager = TestImageManager()
        let prefetcher = Prefetcher(manager: manager)
        let plain = Self.urls(1, prefix: "plain")[0], urgent = Self.urls(1, prefix: "urgent")[0]
        _ = await prefetcher.prefetch(urls: [plain])
        _ = await prefetcher.prefetch(urls: [urgent], options: [.highPriority])
        #expect(manager.options(for: plain) == .lowPriority)
        #expect(manager.options(for: urgent) == .highPriority)
        prefetcher.options = [.retryFailed]
        _ = await prefetcher.prefetch(urls: [plain])
        #expect(manager.options(for: plain) == .retryFailed)
    }

    @Test func synchronousCompletionsAreReportedInOrder() async {
        let manager = TestImageManager { _ in TestImageManager.Plan(synchronous: true) }
        let prefetcher = Prefetcher(manager: manager, maxConcurrentPrefetchCount: 2)
        let recorder = PrefetchRecorder()
        prefetcher.prefetch(urls: Self.urls(50), progress: recorder.progress, completion: recorder.completion)
        // Memory hits complete inside the manager call, so the list is done before prefetch returns.
        #expect(recorder.events == (1...50).map { .progress($0, 50) } + [.completion(50, 0)])
        #expect(manager.maxRunning == 1)
    }

    @Test func cancellingFromInsideAProgressCallbackCompletesOnce() async {
        let manager = TestImageManager { url in TestImageManager.Plan(delay: url.lastPathComponent == "img0.png" ? .zero : Self.outlasting) }
        let prefetcher = Prefetcher(manager: manager)
        let recorder = PrefetchRecorder()
        let box = LockedValue<PrefetchToken?>(nil)
        let token = prefetcher.prefetch(urls: Self.urls(4), progress: { finished, total in
            recorder.progress(finished, total)
            // img0 may finish, on its own task, before `prefetch` has returned the token:
            // wait for it (the callback never runs inside `prefetch`), or nothing cancels.
            // Long: the test's task that stores it waits for a starved pool.
            let deadline = ContinuousClock.now + Duration.seconds(30).scaled
            while box.withLock({ $0 }) == nil, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
            box.withLock { $0 }?.cancel()
        }, completion: recorder.completion)
        box.withLock { $0 = token }
        #expect(await recorder.completed() == .completion(4, 3))
        #expect(recorder.events == [.progress(1, 4), .completion(4, 3)])
    }

    @Test func cancellingTheAwaitingTaskCancelsTheList() async {
        let manager = TestImageManager { _ in TestImageManager.Plan(delay: Self.outlasting) }
        let prefetcher = Prefetcher(manager: manager)
        let task = Task { await prefetcher.prefetch(urls: Self.urls(5)) }
        #expect(await waitUntil(.seconds(30)) { manager.running >= 3 })
        task.cancel()
        #expect(await task.value == PrefetchResult(finished: 5, skipped: 5, total: 5))
        #expect(manager.running == 0)
    }
}
