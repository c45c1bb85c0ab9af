import Foundation
import Testing
@testable import WebImage

/// SDWebImage's manager behaviours over a real cache directory and a loopback server:
/// where each load comes from, and what lands under which key in which level.
@Suite struct ImageManagerFlowTests {
    @Test func reportsNetworkThenMemoryThenDiskForANewManager() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let url = server.url("/a.png")
                let first = harness.makeManager()
                let cold = try await first.loadImage(with: url, options: .waitStoreCache)
                #expect(cold.cacheType == .none)
                #expect(cold.data == png)
                #expect(cold.image.size == ImageSize(width: 40, height: 30))
                #expect(try await first.loadImage(with: url).cacheType == .memory)
                let second = harness.makeManager()
                let disk = try await second.loadImage(with: url)
                #expect(disk.cacheType == .disk)
                #expect(disk.firstPixel == cold.firstPixel)
                #expect(try await second.loadImage(with: url).cacheType == .memory)
                #expect(server.requestCount("/a.png") == 1)
            }
        }
    }

    /// The original and the final image are stored apart: an original the disk refuses
    /// (over its entry limit) used to keep the small thumbnail off the disk too, so every
    /// later load downloaded again.
    @Test func anOriginalTheDiskRefusesLeavesTheThumbnailStored() async throws {
        let png = try pngData(width: 400, height: 300)
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let cache = harness.makeCache()
                cache.diskCache.configuration.maxEntrySize = 300
                try #require(png.count > 300, "the original must be over the entry limit")
                let manager = harness.makeManager(cache: cache)
                var context = ImageContext()
                context.thumbnailPixelSize = ImageSize(width: 4, height: 3)
                let url = server.url("/a.png")
                _ = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
                let thumbnailKey = try #require(manager.cacheKey(for: url, context: context))
                #expect(cache.diskImageData(forKey: url.absoluteString) == nil, "the original is refused")
                let stored = try #require(cache.diskImageData(forKey: thumbnailKey), "the thumbnail is stored")
                #expect(try CodersManager.shared.decode(stored).size == ImageSize(width: 4, height: 3))
            }
        }
    }

    @Test func callbackFormReportsAMemoryHitBeforeReturning() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                _ = try await manager.loadImage(with: server.url("/a.png"))
                let completions = ManagerCompletions()
                manager.loadImage(with: server.url("/a.png"), options: [], context: ImageContext(), progress: nil, completion: completions.handler)
                #expect(completions.all.count == 1)
                #expect((try? completions.all.first?.get())?.cacheType == .memory)
            }
        }
    }

    @Test func keyFilterStoresUnderTheCustomKey() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                var context = ImageContext()
                context.cacheKeyFilter = BlockCacheKeyFilter { "custom:" + $0.path }
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                _ = try await manager.loadImage(with: server.url("/a.png?sig=1"), options: .waitStoreCache, context: context)
                #expect(cache.diskImageData(forKey: "custom:/a.png") == png)
                #expect(cache.diskImageData(forKey: server.url("/a.png?sig=1").absoluteString) == nil)
                // Another signature maps to the same key: no second download.
                let again = try await harness.makeManager().loadImage(with: server.url("/a.png?sig=2"), context: context)
                #expect(again.cacheType == .disk)
                #expect(server.requestCount("/a.png") == 1)
            }
        }
    }

    @Test func serializersBytesLandOnDisk() async throws {
        let png = try pngData()
        let marker = Data("serialized".utf8)
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                var context = ImageContext()
                context.cacheSerializer = BlockCacheSerializer { image, original, _ in
                    original == png && image.size.width == 40 ? marker : nil
                }
                let cache = harness.makeCache()
                let url = server.url("/a.png")
                _ = try await harness.makeManager(cache: cache).loadImage(with: url, options: .waitStoreCache, context: context)
                #expect(cache.diskImageData(forKey: url.absoluteString) == marker)
            }
        }
    }

    /// The original stored for a transformed load goes through the serializer too, as
    /// SDWebImage stores it (review finding: the raw download was written).
    @Test func theOriginalOfATransformedLoadGoesThroughTheSerializer() async throws {
        let png = try pngData()
        let marker = Data("serialized".utf8)
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                var context = ImageContext()
                context.transformer = KeyedFlip("flip")
                context.cacheSerializer = BlockCacheSerializer { _, original, _ in original == png ? marker : nil }
                let cache = harness.makeCache()
                let url = server.url("/a.png")
                _ = try await harness.makeManager(cache: cache).loadImage(with: url, options: .waitStoreCache, context: context)
                #expect(cache.diskImageData(forKey: url.absoluteString) == marker)
            }
        }
    }

    @Test func originalGoesToDiskAndTransformedImageToMemoryOnlyWhenAsked() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let url = server.url("/a.png")
                var context = ImageContext()
                context.transformer = KeyedFlip("flip")
                context.storeCacheType = .memory
                context.originalStoreCacheType = .disk
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                let result = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
                #expect(result.image.isTransformed)
                let key = try #require(manager.cacheKey(for: url, context: context))
                #expect(key.hasSuffix("/a-flip.png"))
                #expect(cache.diskImageData(forKey: url.absoluteString) == png)
                #expect(cache.diskImageData(forKey: key) == nil)
                #expect(cache.imageFromMemoryCache(forKey: key) === result.image)
                #expect(cache.imageFromMemoryCache(forKey: url.absoluteString) == nil)
            }
        }
    }

    @Test func transformedMissFindsTheOriginalOnDiskWithoutDownloading() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let url = server.url("/a.png")
                _ = try await harness.makeManager().loadImage(with: url, options: .waitStoreCache)
                var context = ImageContext()
                context.transformer = KeyedFlip("other")
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                let result = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
                #expect(result.cacheType == .disk)
                #expect(result.image.isTransformed)
                #expect(server.requestCount("/a.png") == 1)
                // The transformed image is stored (memory and disk) under its own key.
                let key = try #require(manager.cacheKey(for: url, context: context))
                #expect(cache.imageFromMemoryCache(forKey: key) === result.image)
                #expect(cache.diskImageData(forKey: key) != nil)
            }
        }
    }

    /// A transformer that fails does not fail the load: as SDWebImage does when its
    /// transformer gives no image, the untransformed image stands for the transformed one,
    /// delivered and stored under the transformed key, so the next load is a cache hit
    /// instead of the failing transform again. The load used to fail, and downloaded again
    /// at every try.
    @Test func aFailedTransformDeliversTheOriginalInItsPlace() async throws {
        let png = try pngData(width: 40, height: 30)
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let url = server.url("/a.png")
                var context = ImageContext()
                context.transformer = CropTransformer(rect: PixelRect(x: 100, y: 100, width: 10, height: 10))
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                let result = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
                #expect(result.image.size == ImageSize(width: 40, height: 30))
                #expect(!result.image.isTransformed)
                #expect(result.cacheType == .none)
                let key = try #require(manager.cacheKey(for: url, context: context))
                #expect(key != url.absoluteString)
                #expect(cache.imageFromMemoryCache(forKey: key) === result.image)
                #expect(cache.diskImageData(forKey: key) == png, "the original's bytes stand for the transformed image")
                #expect(cache.diskImageData(forKey: url.absoluteString) == png, "the original, under its own key")
                let again = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
                #expect(again.cacheType == .memory)
                #expect(server.requestCount("/a.png") == 1)
            }
        }
    }

    /// A load right after another of the same URL reads the original its predecessor is
    /// still writing to disk in the background, instead of downloading it again: the
    /// manager's disk writes and queries of one key keep their order, as SDImageCache's
    /// serial queue keeps them (review finding: the write ran detached, unordered).
    @Test func aSecondThumbnailRightAfterTheFirstReadsTheOriginalBeingWritten() async throws {
        let png = try pngData(width: 900, height: 700)
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let url = server.url("/a.png")
                let manager = harness.makeManager(cache: harness.makeCache())
                for side in [100, 200, 300] {
                    var context = ImageContext()
                    context.thumbnailPixelSize = ImageSize(width: side, height: side)
                    _ = try await manager.loadImage(with: url, context: context)
                }
                #expect(server.requestCount("/a.png") == 1, "the original was downloaded again")
                await manager.waitForBackgroundStores()
            }
        }
    }

    @Test func thumbnailIsStoredUnderTheThumbnailKey() async throws {
        let png = try pngData(width: 100, height: 50)
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let url = server.url("/a.png")
                var context = ImageContext()
                context.thumbnailPixelSize = ImageSize(width: 20, height: 20)
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                let result = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
                #expect(result.image.size == ImageSize(width: 20, height: 10))
                let key = ImageCacheKey.thumbnailed(url.absoluteString, pixelSize: ImageSize(width: 20, height: 20))
                #expect(manager.cacheKey(for: url, context: context) == key)
                #expect(cache.imageFromMemoryCache(forKey: key) === result.image)
                #expect(cache.imageFromMemoryCache(forKey: url.absoluteString) == nil)
                #expect(cache.diskImageData(forKey: url.absoluteString) == png)
                let stored = try #require(cache.diskImageData(forKey: key))
                #expect(try CodersManager.shared.decode(stored).size == ImageSize(width: 20, height: 10))
                // A full-size load of the same URL is not served the thumbnail.
                let full = try await manager.loadImage(with: url)
                #expect(full.image.size == ImageSize(width: 100, height: 50))
                #expect(full.cacheType == .disk)
            }
        }
    }

    @Test func scaleDownLimitOfFourMegabytesGivesAThousandSquare() async throws {
        let png = try pngData(width: 2000, height: 2000)
        try await LoopbackServer.with(["/big.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                var context = ImageContext()
                context.scaleDownLimitBytes = 4_000_000
                let manager = harness.makeManager()
                let result = try await manager.loadImage(with: server.url("/big.png"), options: .scaleDownLargeImages, context: context)
                #expect(result.image.size == ImageSize(width: 1000, height: 1000))
                let unscaled = try await harness.makeManager().loadImage(with: server.url("/big.png"), options: .fromLoaderOnly)
                #expect(unscaled.image.size == ImageSize(width: 2000, height: 2000))
            }
        }
    }

    @Test func fromCacheOnlyMissFailsWithoutARequest() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                await #expect(throws: WebImageError.notInCache) {
                    try await manager.loadImage(with: server.url("/a.png"), options: .fromCacheOnly)
                }
                #expect(server.requestCount("/a.png") == 0)
                #expect(!manager.isFailedURL(server.url("/a.png")))
            }
        }
    }

    @Test func fromLoaderOnlySkipsTheCacheButStillStores() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/a.png")
                _ = try await manager.loadImage(with: url, options: .waitStoreCache)
                let again = try await manager.loadImage(with: url, options: [.fromLoaderOnly, .waitStoreCache])
                #expect(again.cacheType == .none)
                #expect(server.requestCount("/a.png") == 2)
                #expect(try await manager.loadImage(with: url).cacheType == .memory)
            }
        }
    }

    @Test func avoidDecodeImageKeepsPixelsOutOfTheMemoryCache() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                let url = server.url("/a.png")
                let key = try #require(manager.cacheKey(for: url))
                let cold = try await manager.loadImage(with: url, options: [.avoidDecodeImage, .waitStoreCache])
                #expect(cold.cacheType == .none)
                #expect(cold.image.size == ImageSize(width: 40, height: 30))
                #expect(cache.imageFromMemoryCache(forKey: key) == nil)
                #expect(cache.diskImageData(forKey: key) == png)
                // A disk hit under the flag is not promoted to memory either.
                #expect(try await manager.loadImage(with: url, options: .avoidDecodeImage).cacheType == .disk)
                #expect(cache.imageFromMemoryCache(forKey: key) == nil)
                // Without it, the same disk hit is kept in memory for the next load.
                #expect(try await manager.loadImage(with: url).cacheType == .disk)
                #expect(try await manager.loadImage(with: url).cacheType == .memory)
                #expect(server.requestCount("/a.png") == 1)
            }
        }
    }

    @Test func animatedImagesAreTransformedOnlyWithTransformAnimatedImage() async throws {
        let gif = try Corpus.data("TestLoopCount.gif")
        try await LoopbackServer.with(["/a.gif": .ok(gif, contentType: "image/gif")]) { server in
            try await ManagerHarness.with { harness in
                var context = ImageContext()
                context.transformer = KeyedFlip("flip")
                let plain = try await harness.makeManager().loadImage(with: server.url("/a.gif"), context: context)
                #expect(plain.image.frameCount == 2)
                #expect(!plain.image.isTransformed)
                let everyFrame = try await harness.makeManager().loadImage(
                    with: server.url("/a.gif"), options: [.transformAnimatedImage, .fromLoaderOnly], context: context
                )
                #expect(everyFrame.image.frameCount == 2)
                #expect(everyFrame.image.isTransformed)
                let flipped = try FlipTransformer(horizontal: true).transform(plain.image)
                #expect(everyFrame.image.frames[1].pixels == flipped.frames[1].pixels)
            }
        }
    }

    @Test func optionsProcessorRewritesEachLoad() async throws {
        let png = try pngData(width: 100, height: 100)
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                manager.optionsProcessor = ImageOptionsProcessor { _, options, context in
                    var context = context
                    context.thumbnailPixelSize = ImageSize(width: 10, height: 10)
                    return (options, context)
                }
                let result = try await manager.loadImage(with: server.url("/a.png"))
                #expect(result.image.size == ImageSize(width: 10, height: 10))
            }
        }
    }

    /// A load without `.waitStoreCache` completes before its disk write;
    /// `waitForBackgroundStores()` returns only once that write is done. The write is held
    /// in the cache serializer until the test lets it go.
    @Test func waitForBackgroundStoresReturnsOnceTheDiskWriteIsDone() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let release = DispatchSemaphore(value: 0)
                defer { release.signal() }  // a failed check below must not leave the write held
                var context = ImageContext()
                context.cacheSerializer = BlockCacheSerializer { _, data, _ in
                    release.wait()
                    return data
                }
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                await manager.waitForBackgroundStores()  // nothing running: returns at once
                let url = server.url("/a.png")
                let key = try #require(manager.cacheKey(for: url, context: context))
                let result = try await manager.loadImage(with: url, context: context)
                #expect(result.cacheType == .none)
                let waited = LockedValue(false)
                let waiter = Task {
                    await manager.waitForBackgroundStores()
                    waited.withLock { $0 = true }
                }
                try await Task.sleep(for: .milliseconds(200))
                #expect(!waited.withLock { $0 }, "returned while the disk write was still held")
                #expect(await cache.containsImage(forKey: key, cacheType: .disk) == .none)
                release.signal()
                await waiter.value
                #expect(await cache.containsImage(forKey: key, cacheType: .disk) == .disk)
            }
        }
    }
}
