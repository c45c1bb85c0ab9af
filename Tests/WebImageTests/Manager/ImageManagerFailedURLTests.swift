import Foundation
import Testing
@testable import WebImage

/// SDWebImage's `shouldBlockFailedURL` / `shouldDownloadImage` decisions and the failed-URL
/// limits, through a real manager, downloader and loopback origin.
@Suite struct ImageManagerFailedURLTests {
    @Test func shouldBlockFailedURLReplacesTheBuiltInRule() async throws {
        try await LoopbackServer.with(["/gone.png": .status(404), "/busy.png": .status(503)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let asked = LockedValue<[String]>([])
                // Block server errors (the built-in rule does not) and nothing else.
                manager.shouldBlockFailedURL = { url, error in
                    asked.withLock { $0.append(url.path) }
                    if case .invalidDownloadStatusCode(let code) = error { return code >= 500 }
                    return false
                }
                await #expect(throws: WebImageError.invalidDownloadStatusCode(404)) { try await manager.loadImage(with: server.url("/gone.png")) }
                await #expect(throws: WebImageError.invalidDownloadStatusCode(503)) { try await manager.loadImage(with: server.url("/busy.png")) }
                #expect(!manager.isFailedURL(server.url("/gone.png")))
                #expect(manager.isFailedURL(server.url("/busy.png")))
                await #expect(throws: WebImageError.blackListed) { try await manager.loadImage(with: server.url("/busy.png")) }
                #expect(server.requestCount("/busy.png") == 1)
                // A load refused from the cache alone says nothing about the URL: not asked.
                await #expect(throws: WebImageError.notInCache) {
                    try await manager.loadImage(with: server.url("/other.png"), options: .fromCacheOnly)
                }
                #expect(asked.withLock { $0 } == ["/gone.png", "/busy.png"])
                manager.shouldBlockFailedURL = nil
                manager.removeAllFailedURLs()
                await #expect(throws: WebImageError.invalidDownloadStatusCode(404)) { try await manager.loadImage(with: server.url("/gone.png")) }
                #expect(manager.isFailedURL(server.url("/gone.png")), "without the closure the built-in rule blocks a 404")
            }
        }
    }

    @Test func shouldDownloadImageRefusesTheLoaderButNotTheCache() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png), "/b.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let cached = try await manager.loadImage(with: server.url("/a.png"), options: .waitStoreCache)
                let asked = LockedValue<[String]>([])
                manager.shouldDownloadImage = { url in
                    asked.withLock { $0.append(url.path) }
                    return false
                }
                // A miss may not download: notInCache, no request, not a failed URL.
                await #expect(throws: WebImageError.notInCache) { try await manager.loadImage(with: server.url("/b.png")) }
                #expect(server.requestCount("/b.png") == 0)
                #expect(!manager.isFailedURL(server.url("/b.png")))
                // A hit is served; with refreshCached the cached image stays, unasked of the server.
                #expect(try await manager.loadImage(with: server.url("/a.png")).image === cached.image)
                let refreshed = try await manager.loadImage(with: server.url("/a.png"), options: .refreshCached)
                #expect(refreshed.image === cached.image)
                #expect(server.requestCount("/a.png") == 1)
                #expect(asked.withLock { $0 } == ["/b.png", "/a.png"])
                manager.shouldDownloadImage = { $0.path == "/b.png" }
                #expect(try await manager.loadImage(with: server.url("/b.png")).cacheType == .none)
                #expect(server.requestCount("/b.png") == 1)
            }
        }
    }

    /// A review's finding: an image over one load's pixel limit blocked its URL for an hour,
    /// so a load that could decode it (a higher limit, a thumbnail) failed as blacklisted.
    /// The limit is the load's, not the URL's: not remembered.
    @Test func anImageOverOneLoadsPixelLimitDoesNotBlockItsURL() async throws {
        let png = try pngData(width: 40, height: 30)
        try await LoopbackServer.with(["/big.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/big.png")
                var small = ImageContext()
                var decode = ImageCoderOptions()
                decode.pixelLimit = 100
                small.imageDecodeOptions = decode
                await #expect(throws: WebImageError.imageTooLarge(width: 40, height: 30, limit: 100)) {
                    try await manager.loadImage(with: url, context: small)
                }
                #expect(!manager.isFailedURL(url))
                let loaded = try await manager.loadImage(with: url)
                #expect(loaded.image.size == ImageSize(width: 40, height: 30))
                #expect(server.requestCount("/big.png") == 2)
            }
        }
    }

    @Test func theManagersLimitsBoundItsSet() async throws {
        try await LoopbackServer.with(["/1.png": .status(404), "/2.png": .status(404)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.adopt(ImageManager(
                    cache: harness.makeCache(),
                    loader: LoadersManager(loaders: [harness.downloader]),
                    failedURLLimits: .init(capacity: 1)
                ))
                await #expect(throws: WebImageError.invalidDownloadStatusCode(404)) { try await manager.loadImage(with: server.url("/1.png")) }
                await #expect(throws: WebImageError.invalidDownloadStatusCode(404)) { try await manager.loadImage(with: server.url("/2.png")) }
                #expect(!manager.isFailedURL(server.url("/1.png")), "capacity 1: the older failure is forgotten")
                #expect(manager.isFailedURL(server.url("/2.png")))
            }
        }
    }

    @Test func anExpiredFailureLoadsAgain() async throws {
        let expiry = Duration.seconds(1).scaled
        try await LoopbackServer.with(["/a.png": .status(404)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.adopt(ImageManager(
                    cache: harness.makeCache(),
                    loader: LoadersManager(loaders: [harness.downloader]),
                    failedURLLimits: .init(expiry: expiry)
                ))
                let url = server.url("/a.png")
                await #expect(throws: WebImageError.invalidDownloadStatusCode(404)) { try await manager.loadImage(with: url) }
                #expect(manager.isFailedURL(url))
                try await Task.sleep(for: expiry + .milliseconds(100))
                #expect(!manager.isFailedURL(url))
                await #expect(throws: WebImageError.invalidDownloadStatusCode(404)) { try await manager.loadImage(with: url) }
                #expect(server.requestCount("/a.png") == 2)
            }
        }
    }
}
