import Foundation
import Testing
@testable import WebImage

/// Long chains of loads that end inside the call that started them must run in a loop,
/// never as one nested call per item (which overflows a thread's stack).
///
/// CPU-bound and free of sockets, so they run with the codec suites in `make test`'s first
/// pass, away from the timing-sensitive network suites.
@Suite struct CompletionChainTests {
    /// What became of a run of queued downloads: how many were queued, how many ended with
    /// the expected error, and how many downloads were left afterwards.
    private struct ChainOutcome {
        var queued = 0
        var ended = 0
        var left = 0
    }

    /// Queues `count` downloads with `modifier` behind one suspended slot, then releases the
    /// queue and waits (up to 30 s) for them to end with errors `expected` accepts.
    private func runQueuedDownloads(
        _ count: Int,
        modifier: RequestModifier,
        expected: @escaping @Sendable (WebImageError) -> Bool
    ) async throws -> ChainOutcome {
        let ended = LockedValue(0)
        let config = LoaderTesting.config { $0.maxConcurrentDownloads = 1 }
        return try await LoaderTesting.withDownloader(config) { downloader in
            downloader.isSuspended = true
            var options = DownloadRequestOptions()
            options.requestModifier = modifier
            for index in 0..<count {
                let url = try #require(URL(string: "http://127.0.0.1:9/\(index).png"))
                downloader.downloadData(with: url, options: options) { result in
                    if case .failure(let error) = result, expected(error) { ended.withLock { $0 += 1 } }
                }
            }
            var outcome = ChainOutcome(queued: downloader.currentDownloadCount)
            downloader.isSuspended = false
            let deadline = ContinuousClock.now + .seconds(30)
            while ended.withLock({ $0 }) < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            outcome.ended = ended.withLock { $0 }
            outcome.left = downloader.currentDownloadCount
            return outcome
        }
    }

    @Test func manyQueuedDownloadsThatFailBeforeSendingEndOneAfterAnother() async throws {
        // Each refused request frees its slot and starts the next queued one; 30,000 of them
        // in a row must end in a loop, not in 30,000 nested calls (which would overflow the
        // stack of whichever thread frees the first slot).
        let outcome = try await runQueuedDownloads(30_000, modifier: RequestModifier { _ in nil }) { $0 == .invalidDownloadOperation }
        #expect(outcome.queued == 30_000)
        #expect(outcome.ended == 30_000)
        #expect(outcome.left == 0)
    }

    @Test func manyQueuedDownloadsTheHTTPClientRejectsAtOnceEndOneAfterAnother() async throws {
        // A header value with a line break is rejected by the HTTP client while the request is
        // being built, so the transfer has already failed when the downloader asks to hear of
        // its end. On the event loop that frees each slot, that end must not start the next
        // queued download from inside the same call (2,000 nested ends already overflowed its
        // stack in debug).
        let badHeader = RequestModifier { request in
            var request = request
            request.headers.add(name: "X-Note", value: "one\ntwo")
            return request
        }
        let outcome = try await runQueuedDownloads(5_000, modifier: badHeader) { error in
            if case .network = error { return true }
            return false
        }
        #expect(outcome.ended == 5_000)
        #expect(outcome.left == 0)
    }

    @Test func aLongListOfSynchronousCompletionsRunsInALoop() async {
        // 30,000 memory hits in a row: each completion frees a slot inside the manager call;
        // nesting the next start there would overflow the stack.
        let manager = TestImageManager { _ in TestImageManager.Plan(synchronous: true) }
        let prefetcher = Prefetcher(manager: manager, maxConcurrentPrefetchCount: 3)
        let result = await prefetcher.prefetch(urls: PrefetcherTests.urls(30_000))
        #expect(result == PrefetchResult(finished: 30_000, skipped: 0, total: 30_000))
        #expect(manager.loadCount == 30_000)
        #expect(prefetcher.runningListCount == 0)
    }
}
