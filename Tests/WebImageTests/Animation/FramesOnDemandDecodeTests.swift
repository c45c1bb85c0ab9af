import Foundation
import Testing
@testable import WebImage

/// ``ImageCoderOptions/decodesFramesOnDemand`` through ``CodersManager`` and ``ImageCache``,
/// without a network: the poster and the lazy animation against the one-shot decode, what
/// the image charges, and which bytes a store writes for it.
@Suite struct FramesOnDemandDecodeTests {
    static let onDemand: ImageCoderOptions = {
        var options = ImageCoderOptions()
        options.decodesFramesOnDemand = true
        return options
    }()

    /// Whether `cost` is within 1 % of `frames` frames of `image`'s RGBA.
    static func isAbout(_ cost: Int, frames: Int, of image: Image) -> Bool {
        let expected = image.size.width * image.size.height * 4 * frames
        return abs(cost - expected) * 100 <= expected
    }

    @Test(arguments: ["TestImage.gif", "TestImageAnimated.apng", "TestImageAnimated.webp", "TestAnimatedImageMemory.webp"])
    func anAnimationComesBackAsItsPosterWithTheLazyAnimation(_ file: String) throws {
        let data = try Corpus.data(file)
        let whole = try CodersManager.shared.decode(data)
        let poster = try CodersManager.shared.decode(data, options: Self.onDemand)
        let animation = try #require(poster.animatedImage)

        #expect(whole.animatedImage == nil)
        #expect(poster.frameCount == 1)
        #expect(poster.pixels == whole.pixels)
        #expect(poster.size == whole.size)
        #expect(poster.format == whole.format)
        #expect(animation.frameCount == whole.frameCount)
        #expect(animation.durations == whole.frames.map(\.duration))
        #expect(animation.animatedImageData == data)
        // Only the poster is decoded, and only the poster is charged (a buffer's cost is
        // its allocation, which may round up a little: hence "about" one frame).
        #expect(!animation.isAllFramesLoaded)
        #expect(poster.memoryCost == animation.posterFrame.memoryCost)
        #expect(Self.isAbout(poster.memoryCost, frames: 1, of: whole))
        // A frame decoded on demand is the one-shot decode's frame.
        let last = whole.frameCount - 1
        #expect(try animation.frame(at: last) == whole.frames[last].pixels)
    }

    @Test func preloadingDecodesAndChargesEveryFrame() throws {
        let data = try Corpus.data("TestImageAnimated.webp")
        var options = Self.onDemand
        options.preloadAllFrames = true
        let poster = try CodersManager.shared.decode(data, options: options)
        let animation = try #require(poster.animatedImage)
        let whole = try CodersManager.shared.decode(data)
        #expect(animation.isAllFramesLoaded)
        #expect(Self.isAbout(poster.memoryCost, frames: whole.frameCount, of: whole))
        for index in 0..<whole.frameCount {
            #expect(animation.heldFrame(at: index) == whole.frames[index].pixels)
        }
    }

    @Test(arguments: ["TestImage.jpg", "TestImage.png", "TestImageStatic.webp", "TestLoopCount.gif"])
    func stillImagesAndOneFrameFilesDecodeAsUsual(_ file: String) throws {
        let data = try Corpus.data(file)
        let image = try CodersManager.shared.decode(data, options: Self.onDemand)
        let usual = try CodersManager.shared.decode(data)
        // TestLoopCount.gif has two frames: it stays lazy; the stills have none to defer.
        #expect((image.animatedImage != nil) == usual.isAnimated)
        #expect(image.pixels == usual.pixels)
    }

    @Test func firstFrameOnlyWinsOverFramesOnDemand() throws {
        var options = Self.onDemand
        options.decodeFirstFrameOnly = true
        let image = try CodersManager.shared.decode(try Corpus.data("TestImage.gif"), options: options)
        #expect(image.animatedImage == nil)
        #expect(image.frameCount == 1)
    }

    @Test func aThumbnailAppliesToEveryFrameOnDemand() throws {
        var options = Self.onDemand
        options.thumbnailPixelSize = ImageSize(width: 20, height: 20)
        let data = try Corpus.data("TestImageAnimated.webp")
        let poster = try CodersManager.shared.decode(data, options: options)
        let animation = try #require(poster.animatedImage)
        #expect(poster.isThumbnail)
        #expect(max(poster.size.width, poster.size.height) == 20)
        #expect(try animation.frame(at: 3).size == poster.size)
    }

    @Test func theCacheStoresTheFileOfAnAnimationDecodedOnDemand() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = ImageCache(namespace: "on-demand", directory: directory.url)
        let data = try Corpus.data("TestImageAnimated.apng")
        let poster = try CodersManager.shared.decode(data, options: Self.onDemand)

        // No bytes given: the animation's own file goes to disk, not a one-frame encoding.
        try await cache.store(poster, data: nil, forKey: "a", cacheType: .disk)
        #expect(cache.diskImageData(forKey: "a") == data)

        // A thumbnail's key must hold the thumbnail: every frame, encoded at its size.
        var small = Self.onDemand
        small.thumbnailPixelSize = ImageSize(width: 16, height: 16)
        let thumbnail = try CodersManager.shared.decode(data, options: small)
        try await cache.store(thumbnail, data: nil, forKey: "t", cacheType: .disk)
        let stored = try CodersManager.shared.decode(try #require(cache.diskImageData(forKey: "t")))
        #expect(stored.size == thumbnail.size)
        #expect(stored.frameCount == thumbnail.animatedImage?.frameCount)
    }

    @Test func aDiskHitIsDecodedTheWayTheQueryAsksAndTheMemoryEntryMustMatch() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = ImageCache(namespace: "on-demand", directory: directory.url)
        let data = try Corpus.data("TestImage.gif")
        try await cache.store(nil, data: data, forKey: "g", cacheType: .disk)

        var lazy = ImageCacheContext()
        lazy.coderOptions = Self.onDemand
        let first = try await cache.image(forKey: "g", context: lazy)
        #expect(first.cacheType == .disk)
        #expect(first.image?.animatedImage?.frameCount == 5)
        #expect(cache.memoryCache.totalCost == first.image?.pixels.memoryCost)

        // The lazy entry in memory answers a lazy query ...
        let again = try await cache.image(forKey: "g", context: lazy)
        #expect(again.cacheType == .memory)
        #expect(again.image === first.image)
        // ... but not a query that wants every frame, which decodes from disk again.
        let whole = try await cache.image(forKey: "g")
        #expect(whole.cacheType == .disk)
        #expect(whole.image?.frameCount == 5)
        #expect(whole.image?.animatedImage == nil)
    }

    @Test func transformingEveryFrameDecodesThemAndUntouchedKeepsTheAnimation() throws {
        let poster = try CodersManager.shared.decode(try Corpus.data("TestImage.gif"), options: Self.onDemand)
        let flip = FlipTransformer(horizontal: true)
        let every = try flip.transform(poster, animated: .everyFrame)
        #expect(every.frameCount == 5)
        #expect(every.animatedImage == nil)
        #expect(try flip.transform(poster, animated: .untouched) === poster)
        let still = try flip.transform(poster, animated: .posterFrame)
        #expect(still.frameCount == 1)
        #expect(still.animatedImage == nil)
    }
}
