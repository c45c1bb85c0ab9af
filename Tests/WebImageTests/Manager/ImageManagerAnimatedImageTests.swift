import Foundation
import Testing
@testable import WebImage

/// ``ImageContext/decodesFramesOnDemand`` through a real manager, cache directory and
/// loopback origin: the load returns the lazy animation, memory charges the frames decoded,
/// the disk keeps the file as it came, and each cache level gives it back the same way.
@Suite struct ImageManagerAnimatedImageTests {
    static var onDemand: ImageContext {
        var context = ImageContext()
        context.decodesFramesOnDemand = true
        return context
    }

    /// Serves TestImageAnimated.webp (8 frames) at `/a.webp` and runs `body` with its URL.
    func withAnimation<T: Sendable>(_ body: (URL, Data, ManagerHarness) async throws -> T) async throws -> T {
        let webp = try Corpus.data("TestImageAnimated.webp")
        return try await LoopbackServer.with(["/a.webp": .ok(webp, contentType: "image/webp")]) { server in
            try await ManagerHarness.with { harness in try await body(server.url("/a.webp"), webp, harness) }
        }
    }

    @Test func aDownloadReturnsTheLazyAnimationAndMemoryChargesOnlyThePoster() async throws {
        try await withAnimation { url, webp, harness in
            let cache = harness.makeCache()
            let manager = harness.makeManager(cache: cache)
            let result = try await manager.loadImage(with: url, options: .waitStoreCache, context: Self.onDemand)
            let animation = try #require(result.animatedImage)
            let whole = try CodersManager.shared.decode(webp)

            #expect(result.cacheType == .none)
            #expect(animation.frameCount == 8)
            #expect(!animation.isAllFramesLoaded)
            #expect(result.image.frameCount == 1)
            #expect(cache.memoryCache.totalCost == result.image.memoryCost)
            #expect(FramesOnDemandDecodeTests.isAbout(cache.memoryCache.totalCost, frames: 1, of: whole))
            // The disk keeps the downloaded file, from which every frame can come again.
            #expect(cache.diskImageData(forKey: url.absoluteString) == webp)
            #expect(try animation.frame(at: 7) == whole.frames[7].pixels)

            // The next load is a memory hit on the same lazy image.
            let again = try await manager.loadImage(with: url, context: Self.onDemand)
            #expect(again.cacheType == .memory)
            #expect(again.image === result.image)
        }
    }

    /// The decode options' `decodesFramesOnDemand` counts as the context's field in the
    /// memory check too, as it does in the load: the check read the field alone, so an
    /// animation decoded whole was handed to a load asking for frames on demand (and one
    /// decoded lazily was never found by it).
    @Test func theDecodeOptionsFlagDecidesTheMemoryHitAsTheContextsDoes() async throws {
        try await withAnimation { url, _, harness in
            let manager = harness.makeManager(cache: harness.makeCache())
            var viaOptions = ImageContext()
            var decode = ImageCoderOptions()
            decode.decodesFramesOnDemand = true
            viaOptions.imageDecodeOptions = decode
            let whole = try await manager.loadImage(with: url, options: .waitStoreCache)
            #expect(whole.animatedImage == nil)
            #expect(manager.cachedImage(for: url, context: viaOptions) == nil, "decoded whole: not for a load that wants frames on demand")
            let lazy = try await manager.loadImage(with: url, options: .waitStoreCache, context: viaOptions)
            #expect(lazy.animatedImage != nil)
            #expect(manager.cachedImage(for: url, context: viaOptions) === lazy.image)
        }
    }

    @Test func preloadAllFramesChargesEveryFrame() async throws {
        try await withAnimation { url, webp, harness in
            let cache = harness.makeCache()
            let manager = harness.makeManager(cache: cache)
            let result = try await manager.loadImage(with: url, options: [.waitStoreCache, .preloadAllFrames], context: Self.onDemand)
            let animation = try #require(result.animatedImage)
            #expect(animation.isAllFramesLoaded)
            #expect(FramesOnDemandDecodeTests.isAbout(cache.memoryCache.totalCost, frames: 8, of: try CodersManager.shared.decode(webp)))
        }
    }

    @Test func aDiskHitIsLazyToo() async throws {
        try await withAnimation { url, _, harness in
            _ = try await harness.makeManager().loadImage(with: url, options: .waitStoreCache, context: Self.onDemand)
            // A new manager over the same directory: an empty memory level.
            let fromDisk = try await harness.makeManager().loadImage(with: url, context: Self.onDemand)
            #expect(fromDisk.cacheType == .disk)
            #expect(fromDisk.animatedImage?.frameCount == 8)
            #expect(fromDisk.image.frameCount == 1)
        }
    }

    @Test func anImageCachedTheOtherWayIsNotReused() async throws {
        try await withAnimation { url, _, harness in
            let manager = harness.makeManager()
            let whole = try await manager.loadImage(with: url, options: .waitStoreCache)
            #expect(whole.image.frameCount == 8)
            #expect(whole.animatedImage == nil)

            // Every frame in memory must not be charged to a lazy load, nor a poster be
            // handed to a caller that iterates the frames: both decode from disk instead.
            let lazy = try await manager.loadImage(with: url, context: Self.onDemand)
            #expect(lazy.cacheType == .disk)
            #expect(lazy.animatedImage?.frameCount == 8)
            let wholeAgain = try await manager.loadImage(with: url)
            #expect(wholeAgain.cacheType == .disk)
            #expect(wholeAgain.image.frameCount == 8)
        }
    }

    @Test func transformAnimatedImageTransformsEveryFrameOfALazyAnimation() async throws {
        try await withAnimation { url, webp, harness in
            var context = Self.onDemand
            context.transformer = KeyedFlip("flip")
            let manager = harness.makeManager()
            let flipped = try await manager.loadImage(with: url, options: .transformAnimatedImage, context: context)
            #expect(flipped.image.frameCount == 8)
            #expect(flipped.image.isTransformed)
            let expected = try FlipTransformer(horizontal: true).transform(try CodersManager.shared.decode(webp))
            #expect(flipped.image.frames.map(\.pixels) == expected.frames.map(\.pixels))

            // Without the option an animation is left untouched, as SDWebImage leaves it.
            var plain = Self.onDemand
            plain.transformer = KeyedFlip("other")
            let untouched = try await manager.loadImage(with: url, context: plain)
            #expect(untouched.animatedImage?.frameCount == 8)
            #expect(!untouched.image.isTransformed)
        }
    }

    @Test func aStillImageLoadsAsUsual() async throws {
        try await LoopbackServer.with(["/a.png": pngReply(try pngData())]) { server in
            try await ManagerHarness.with { harness in
                let result = try await harness.makeManager().loadImage(with: server.url("/a.png"), context: Self.onDemand)
                #expect(result.animatedImage == nil)
                #expect(result.image.size == ImageSize(width: 40, height: 30))
            }
        }
    }
}
