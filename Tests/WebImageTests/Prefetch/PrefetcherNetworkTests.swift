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

    /// `.refreshCached` through the real manager: each URL's cached image comes at once and
    /// its refresh finds the image unchanged, which the manager's callback form never
    /// reports. The prefetcher used to free the slot at the cached image, so every refresh
    /// ran at once, past the limit, and the list completed before any of them ended.
    /// Also when the manager's options processor adds `.refreshCached` (review finding: the
    /// prefetcher looked at the options it was given, and took the callback form), where
    /// the processor runs once per load.
    @Test(arguments: ["given", "added by the options processor"])
    func refreshesOfCachedImagesKeepToTheLimitAndEndBeforeTheList(_ how: String) async throws {
        let png = try pngData()
        let paths = (0..<4).map { "/\($0).png" }
        try await LoopbackServer.with(Dictionary(uniqueKeysWithValues: paths.map { ($0, pngReply(png)) })) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let urls = paths.map(server.url)
                for url in urls { _ = try await manager.loadImage(with: url, options: .waitStoreCache) }
                // Each refresh is held open long enough that two would overlap (scaled).
                for path in paths { server.setRoute(path, .delayed(Duration.milliseconds(40).scaled, then: pngReply(png))) }
                let handled = LockedValue<[URL: Int]>([:])
                let prefetcher = Prefetcher(manager: manager, maxConcurrentPrefetchCount: 1) { url, result in
                    #expect((try? result.get())?.cacheType == .memory, "unchanged: the cached image")
                    handled.withLock { $0[url, default: 0] += 1 }
                }
                let processed = LockedValue<[URL: Int]>([:])
                manager.optionsProcessor = ImageOptionsProcessor { url, options, context in
                    processed.withLock { $0[url, default: 0] += 1 }
                    return (how == "given" ? options : options.union(.refreshCached), context)
                }
                let result = await prefetcher.prefetch(urls: urls, options: how == "given" ? .refreshCached : [])
                #expect(result == PrefetchResult(finished: 4, skipped: 0, total: 4))
                #expect(paths.map(server.requestCount) == [2, 2, 2, 2], "every refresh ended before the list")
                #expect(server.maxOpenRequests == 1)
                #expect(handled.withLock { $0 } == Dictionary(uniqueKeysWithValues: urls.map { ($0, 1) }), "one report per URL")
                // A later review's finding: the prefetcher ran the processor to choose, then
                // the manager ran it again.
                #expect(processed.withLock { $0 } == Dictionary(uniqueKeysWithValues: urls.map { ($0, 1) }), "the processor runs once per load")
            }
        }
    }
}
