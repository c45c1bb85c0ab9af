import Foundation
import Testing
@testable import WebImage

/// The prefetcher against the real downloader and a loopback HTTP server.
@Suite struct PrefetcherNetworkTests {
    @Test func prefetchingThreeURLsOverHTTPReportsProgressThenCompletion() async throws {
        let png = try Corpus.data("TestImage.png")
        let jpeg = try Corpus.data("TestImage.jpg")
        let routes: [String: LoopbackServer.Reply] = ["/a.png": .ok(png), "/b.jpg": .ok(jpeg), "/c.png": .ok(png)]
        try await LoopbackServer.with(routes) { server in
            try await LoaderTesting.withDownloader { downloader in
                let prefetcher = Prefetcher(manager: DownloaderImageManager(downloader: downloader))
                let recorder = PrefetchRecorder()
                prefetcher.prefetch(urls: ["/a.png", "/b.jpg", "/c.png"].map(server.url), progress: recorder.progress,
                                    completion: recorder.completion)
                #expect(await recorder.completed() == .completion(3, 0))
                #expect(recorder.events == [.progress(1, 3), .progress(2, 3), .progress(3, 3), .completion(3, 0)])
                #expect(["/a.png", "/b.jpg", "/c.png"].map(server.requestCount) == [1, 1, 1])
            }
        }
    }

    @Test func serverSeesAtMostTheConcurrencyLimitAndMissingImagesAreSkipped() async throws {
        let png = try Corpus.data("TestImage.png")
        var routes: [String: LoopbackServer.Reply] = [:]
        // Long enough that two requests overlap even under the thread sanitizer (scaled).
        for index in 0..<8 { routes["/\(index).png"] = .delayed(Duration.milliseconds(40).scaled, then: .ok(png)) }
        try await LoopbackServer.with(routes) { server in
            try await LoaderTesting.withDownloader { downloader in
                let prefetcher = Prefetcher(manager: DownloaderImageManager(downloader: downloader), maxConcurrentPrefetchCount: 2)
                let urls = (0..<10).map { server.url("/\($0).png") }  // 8 and 9 are 404s
                let result = await prefetcher.prefetch(urls: urls)
                #expect(result == PrefetchResult(finished: 10, skipped: 2, total: 10))
                #expect(server.maxOpenRequests == 2)
            }
        }
    }
}
