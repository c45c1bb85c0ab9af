import Foundation
import Testing
@testable import WebImage

/// How long these tests wait for a load's request to reach the server (times
/// ``TestTime/scale``; it returns as soon as it does): a manager's load asks its disk cache
/// first, on BlockingIO's queue, which other tests' decodes can hold for tens of seconds on
/// a starved machine.
private let managerWait = Duration.seconds(60)

/// The failed-URL set, `refreshCached` and cancellation.
@Suite struct ImageManagerRetryAndCancelTests {
    @Test func a404IsRememberedUntilRetryFailed() async throws {
        try await LoopbackServer.with(["/missing.png": .status(404)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/missing.png")
                await #expect(throws: WebImageError.invalidDownloadStatusCode(404)) { try await manager.loadImage(with: url) }
                #expect(manager.isFailedURL(url))
                await #expect(throws: WebImageError.blackListed) { try await manager.loadImage(with: url) }
                #expect(server.requestCount("/missing.png") == 1)
                server.setRoute("/missing.png", pngReply(try pngData()))
                let result = try await manager.loadImage(with: url, options: .retryFailed)
                #expect(result.cacheType == .none)
                #expect(server.requestCount("/missing.png") == 2)
                #expect(!manager.isFailedURL(url))
            }
        }
    }

    @Test func aTimeoutIsNotRemembered() async throws {
        try await LoopbackServer.with(["/slow.png": .stallBeforeHeaders]) { server in
            // The first load must end by this time-out, and the second, with the same one,
            // must not: 5 s, as on a starved machine a request's head took over 2 s to come
            // (1 s left no room; the first load's stall costs the test the whole of it).
            try await ManagerHarness.with(timeout: .seconds(5)) { harness in
                let manager = harness.makeManager()
                let url = server.url("/slow.png")
                await #expect(throws: WebImageError.timedOut) { try await manager.loadImage(with: url) }
                #expect(!manager.isFailedURL(url))
                server.setRoute("/slow.png", pngReply(try pngData()))
                #expect(try await manager.loadImage(with: url).cacheType == .none)
                #expect(server.requestCount("/slow.png") == 2)
            }
        }
    }

    @Test func badImageDataIsRememberedAndServerErrorsAreNot() async throws {
        try await LoopbackServer.with(["/junk.png": .ok(Data("not an image".utf8), contentType: "image/png"), "/busy.png": .status(503)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                // Bad image data in particular: any error would do for a remembered 404 too.
                let junk = await #expect(throws: WebImageError.self) { try await manager.loadImage(with: server.url("/junk.png")) }
                let isBadImageData = if case .badImageData? = junk { true } else { false }
                #expect(isBadImageData, "\(String(describing: junk))")
                #expect(manager.isFailedURL(server.url("/junk.png")))
                await #expect(throws: WebImageError.invalidDownloadStatusCode(503)) { try await manager.loadImage(with: server.url("/busy.png")) }
                #expect(!manager.isFailedURL(server.url("/busy.png")))
            }
        }
    }

    @Test func refreshCachedWithA304DeliversTheCachedImageOnce() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/a.png")
                let original = try await manager.loadImage(with: url, options: .waitStoreCache)
                server.setRoute("/a.png", .status(304))
                let completions = ManagerCompletions()
                manager.loadImage(with: url, options: .refreshCached, context: ImageContext(), progress: nil, completion: completions.handler)
                try await server.waitForRequests(2, within: managerWait)
                await waitUntilIdle(manager)
                try await Task.sleep(for: .milliseconds(50))
                #expect(completions.all.count == 1)
                #expect((try? completions.all.first?.get())?.image === original.image)
                let asyncResult = try await manager.loadImage(with: url, options: .refreshCached)
                #expect(asyncResult.image === original.image)
                #expect(asyncResult.cacheType == .memory)
                #expect(server.requestCount("/a.png") == 3)
            }
        }
    }

    /// A review's finding: on a 304 the downloader ran the decryptor again over the cached
    /// bytes (decrypted when first downloaded), so the refresh failed with bad data and the
    /// URL was remembered as failed.
    @Test func refreshCachedWithA304AndADecryptorKeepsTheCachedImage() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": .ok(png.base64EncodedData(), contentType: "text/plain")]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/a.png")
                var context = ImageContext()
                context.decryptor = .base64
                let original = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
                server.setRoute("/a.png", .status(304))
                let refreshed = try await manager.loadImage(with: url, options: .refreshCached, context: context)
                #expect(refreshed.image === original.image)
                #expect(server.requestCount("/a.png") == 2)
                #expect(!manager.isFailedURL(url))
            }
        }
    }

    /// A review's finding: a refresh that failed (the server now answers 404) remembered
    /// the URL as failed, and the next plain load, a memory hit, was refused as
    /// `blackListed` while the image sat in the cache.
    @Test func aFailedRefreshLeavesTheCachedImageLoadable() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/a.png")
                let original = try await manager.loadImage(with: url, options: .waitStoreCache)
                server.setRoute("/a.png", .status(404))
                #expect(try await manager.loadImage(with: url, options: .refreshCached).image === original.image)
                #expect(!manager.isFailedURL(url))
                #expect(try await manager.loadImage(with: url).image === original.image)
            }
        }
    }

    @Test func refreshCachedAsksWithTheValidatorsOfTheCachedResponse() async throws {
        let png = try pngData()
        let validators = [("ETag", "\"v1\""), ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")]
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png", headers: validators)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/a.png")
                let original = try await manager.loadImage(with: url, options: .waitStoreCache)
                #expect(server.requests.first?.header("If-None-Match") == nil)
                server.setRoute("/a.png", .status(304))
                let refreshed = try await manager.loadImage(with: url, options: .refreshCached)
                #expect(refreshed.image === original.image)
                let revalidation = try #require(server.requests.last)
                #expect(revalidation.header("If-None-Match") == "\"v1\"")
                #expect(revalidation.header("If-Modified-Since") == "Wed, 21 Oct 2015 07:28:00 GMT")
                // An ordinary load is never conditional: without cached bytes a 304 is useless.
                server.setRoute("/a.png", pngReply(png))
                _ = try await manager.loadImage(with: url, options: .fromLoaderOnly)
                #expect(server.requests.last?.header("If-None-Match") == nil)
                #expect(server.requestCount("/a.png") == 3)
            }
        }
    }

    /// A refresh asks about the bytes its cache holds. The validators were the downloader's
    /// latest for the URL, whichever caller's: after another caller saw version 2, a cache
    /// holding version 1 asked "changed since version 2?", and the 304 kept version 1 for good.
    @Test func aRefreshAsksOnlyAboutTheVersionItsCacheHolds() async throws {
        let red = RGBAColor(red: 250, green: 0, blue: 0, alpha: 255)
        let green = RGBAColor(red: 0, green: 250, blue: 0, alpha: 255)
        let version1 = LoopbackServer.Reply.ok(try pngData(color: red), contentType: "image/png", headers: [("ETag", "\"v1\"")])
        try await LoopbackServer.with(["/a.png": version1]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/a.png")
                _ = try await manager.loadImage(with: url, options: .waitStoreCache)
                // Version 2 goes to another caller of the same downloader, not to the cache.
                server.setRoute("/a.png", .ok(try pngData(color: green), contentType: "image/png", headers: [("ETag", "\"v2\"")]))
                _ = try await harness.downloader.loadData(from: url)
                let refreshed = try await manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache])
                #expect(server.requests.last?.header("If-None-Match") == "\"v1\"", "asked about the cached version")
                #expect(refreshed.firstPixel == green)
                // Now the cache holds version 2, and the next refresh asks about it.
                server.setRoute("/a.png", .status(304))
                let again = try await manager.loadImage(with: url, options: .refreshCached)
                #expect(server.requests.last?.header("If-None-Match") == "\"v2\"")
                #expect(again.firstPixel == green)
            }
        }
    }

    @Test func refreshCachedWithChangedBytesDeliversTheNewImage() async throws {
        let red = RGBAColor(red: 250, green: 0, blue: 0, alpha: 255)
        let green = RGBAColor(red: 0, green: 250, blue: 0, alpha: 255)
        let blue = RGBAColor(red: 0, green: 0, blue: 250, alpha: 255)
        try await LoopbackServer.with(["/a.png": pngReply(try pngData(color: red))]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/a.png")
                _ = try await manager.loadImage(with: url, options: .waitStoreCache)
                server.setRoute("/a.png", pngReply(try pngData(color: green)))
                let completions = ManagerCompletions()
                manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache], context: ImageContext(), progress: nil,
                                  completion: completions.handler)
                await completions.wait(for: 2)
                let results = completions.all.compactMap { try? $0.get() }
                #expect(results.map(\.cacheType) == [.memory, .none])
                #expect(results.map(\.firstPixel) == [red, green])
                // Now memory holds green; the async form returns the fresh blue image.
                server.setRoute("/a.png", pngReply(try pngData(color: blue)))
                let fresh = try await manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache])
                #expect(fresh.cacheType == .none)
                #expect(fresh.firstPixel == blue)
                // The same bytes again: no change, the cached image comes back.
                let same = try await manager.loadImage(with: url, options: .refreshCached)
                #expect(same.cacheType == .memory)
                #expect(same.firstPixel == blue)
                #expect(server.requestCount("/a.png") == 4)
            }
        }
    }

    @Test func cancellingTheTaskCancelsTheDownload() async throws {
        try await LoopbackServer.with(["/slow.png": .stallAfterHeaders(contentLength: 1000)]) { server in
            // A 30-s idle time-out: only the cancellation can close this stalled request
            // within the 10-s bounds, however starved the machine is when the checks run.
            try await ManagerHarness.with(timeout: LoaderTesting.outlastingTimeout) { harness throws in
                let manager = harness.makeManager()
                let url = server.url("/slow.png")
                let task = Task { try await manager.loadImage(with: url) }
                // The request's arrival can take seconds on a loaded machine (the load asks
                // the disk cache first, on BlockingIO's busy queue): wait for the connection
                // itself, as long as it takes (see managerWait); 10 s was not always enough.
                #expect(await waitUntil(managerWait) { server.openConnectionCount == 1 && server.requests.count == 1 })
                let start = ContinuousClock.now
                task.cancel()
                await #expect(throws: WebImageError.cancelled) { try await task.value }
                #expect(ContinuousClock.now - start < LoaderTesting.endBound.scaled)
                // The request itself ends, not only the wait for it: the server sees the close.
                #expect(try await server.waitForOpenConnections(atMost: 0, within: LoaderTesting.endBound))
                await waitUntilIdle(manager)
                #expect(!manager.isRunning)
                #expect(harness.downloader.currentDownloadCount == 0)
                #expect(!manager.isFailedURL(url))
            }
        }
    }

    @Test func cancellingAnOperationCompletesOnceWithCancelled() async throws {
        try await LoopbackServer.with(["/slow.png": .stallAfterHeaders(contentLength: 1000)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let completions = ManagerCompletions()
                let operation = manager.loadImage(with: server.url("/slow.png"), options: [], context: ImageContext(), progress: nil,
                                                  completion: completions.handler)
                try await server.waitForRequests(1, within: managerWait)
                let start = ContinuousClock.now
                operation.cancel()
                operation.cancel()
                await waitUntilIdle(manager)
                // Well before the 30-s time-out, the only other end of the stalled download.
                #expect(ContinuousClock.now - start < LoaderTesting.endBound.scaled)
                try await Task.sleep(for: .milliseconds(50))
                #expect(completions.all.count == 1)
                #expect(throws: WebImageError.cancelled) { try completions.all.first?.get() }
                #expect(harness.downloader.currentDownloadCount == 0)
            }
        }
    }

    @Test func cancelAllEndsEveryLoad() async throws {
        try await LoopbackServer.with(["/a.png": .stallAfterHeaders(contentLength: 10), "/b.png": .stallAfterHeaders(contentLength: 10)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let a = Task { try await manager.loadImage(with: server.url("/a.png")) }
                let completions = ManagerCompletions()
                manager.loadImage(with: server.url("/b.png"), options: [], context: ImageContext(), progress: nil, completion: completions.handler)
                try await server.waitForRequests(2, within: managerWait)
                manager.cancelAll()
                await #expect(throws: WebImageError.cancelled) { try await a.value }
                await completions.wait(for: 1)
                #expect(throws: WebImageError.cancelled) { try completions.all.first?.get() }
            }
        }
    }
}
