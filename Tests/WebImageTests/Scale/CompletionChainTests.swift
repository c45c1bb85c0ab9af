import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Long chains of loads that end inside the call that started them must run in a loop,
/// never as one nested call per item (which overflows a thread's stack).
///
/// CPU-bound and free of sockets, so they run with the codec suites in `make test`'s first
/// pass, away from the timing-sensitive network suites.
@Suite struct CompletionChainTests {
    @Test func manyQueuedDownloadsThatFailBeforeSendingEndOneAfterAnother() async throws {
        // Each refused request frees its slot and starts the next queued one; 30,000 of them
        // in a row must end in a loop, not in 30,000 nested calls (which would overflow the
        // stack of whichever thread frees the first slot).
        let count = 30_000
        let refusals = Mutex(0)
        let config = LoaderTesting.config { $0.maxConcurrentDownloads = 1 }
        try await LoaderTesting.withDownloader(config) { downloader in
            downloader.isSuspended = true
            var options = DownloadRequestOptions()
            options.requestModifier = RequestModifier { _ in nil }
            for index in 0..<count {
                let url = try #require(URL(string: "http://127.0.0.1:9/\(index).png"))
                downloader.downloadData(with: url, options: options) { result in
                    if case .failure(.invalidDownloadOperation) = result { refusals.withLock { $0 += 1 } }
                }
            }
            #expect(downloader.currentDownloadCount == count)
            downloader.isSuspended = false
            let deadline = ContinuousClock.now + .seconds(30)
            while refusals.withLock({ $0 }) < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(refusals.withLock { $0 } == count)
            #expect(downloader.currentDownloadCount == 0)
        }
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

    @Test func manyQueuedDownloadsTheHTTPClientRejectsAtOnceEndOneAfterAnother() async throws {
        // A header value with a line break is rejected by the HTTP client while the request is
        // being built, so the transfer has already failed when the downloader asks to hear of
        // its end. On the event loop that frees each slot, that end must not start the next
        // queued download from inside the same call (2,000 nested ends already overflowed its
        // stack in debug).
        let count = 5_000
        let rejections = Mutex(0)
        let config = LoaderTesting.config { $0.maxConcurrentDownloads = 1 }
        try await LoaderTesting.withDownloader(config) { downloader in
            downloader.isSuspended = true
            var options = DownloadRequestOptions()
            options.requestModifier = RequestModifier { request in
                var request = request
                request.headers.add(name: "X-Note", value: "one\ntwo")
                return request
            }
            for index in 0..<count {
                let url = try #require(URL(string: "http://127.0.0.1:9/\(index).png"))
                downloader.downloadData(with: url, options: options) { result in
                    if case .failure(.network) = result { rejections.withLock { $0 += 1 } }
                }
            }
            downloader.isSuspended = false
            let deadline = ContinuousClock.now + .seconds(30)
            while rejections.withLock({ $0 }) < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(rejections.withLock { $0 } == count)
            #expect(downloader.currentDownloadCount == 0)
        }
    }
}
