import Foundation
import Testing
@testable import WebImage

@Suite("ImageCache store formats and serializers")
struct ImageCacheStoreFormatTests {
    /// Stores `image` without data and returns the format of the bytes that reached disk.
    private func storedFormat(of image: Image) async throws -> ImageFormat {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        try await cache.store(image, data: nil, forKey: "k")
        let bytes = try #require(cache.diskImageData(forKey: "k"))
        // What was written must decode back.
        _ = try CodersManager.shared.decode(bytes)
        return ImageFormat(sniffing: bytes)
    }

    @Test func anOpaqueImageWithoutAFormatIsStoredAsJPEG() async throws {
        #expect(try await storedFormat(of: makeImage(hasAlpha: false)) == .jpeg)
    }

    @Test func anImageWithAlphaIsStoredAsPNG() async throws {
        let translucent = makeImage(color: RGBAColor(red: 1, green: 2, blue: 3, alpha: 128), hasAlpha: true)
        #expect(try await storedFormat(of: translucent) == .png)
    }

    @Test func anImageKeepsItsOwnEncodableFormat() async throws {
        #expect(try await storedFormat(of: makeImage(format: .webp, hasAlpha: true)) == .webp)
        #expect(try await storedFormat(of: makeImage(format: .png, hasAlpha: false)) == .png)
    }

    @Test func anAnimationIsStoredAsGIFOrElseWebP() async throws {
        let expected: ImageFormat = CodersManager.shared.canEncode(to: .gif) ? .gif : .webp
        let format = try await storedFormat(of: makeAnimatedImage())
        #expect(format == expected)
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        try await cache.store(makeAnimatedImage(), data: nil, forKey: "k", cacheType: .disk)
        let decoded = try #require(try await cache.image(forKey: "k").image)
        #expect(decoded.frameCount == 2)
    }

    /// A review's finding: a JPEG given transparent corners by a transformer kept its
    /// format, so the disk copy was a JPEG flattened onto white and came back that way.
    @Test func aJPEGThatGainedAlphaIsStoredAsPNG() async throws {
        #expect(ImageCache.storageFormat(for: makeImage(format: .jpeg, hasAlpha: true), coder: CodersManager.shared) == .png)
        #expect(ImageCache.storageFormat(for: makeImage(format: .jpeg, hasAlpha: false), coder: CodersManager.shared) == .jpeg)
        #expect(ImageCache.storageFormat(for: makeImage(format: .webp, hasAlpha: true), coder: CodersManager.shared) == .webp)
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        let rounded = makeImage(width: 8, height: 8, color: RGBAColor(red: 10, green: 20, blue: 30, alpha: 0), format: .jpeg, hasAlpha: true)
        try await cache.store(rounded, data: nil, forKey: "k", cacheType: .disk)
        let decoded = try #require(cache.imageFromDiskCache(forKey: "k"))
        #expect(decoded.format == .png)
        #expect(decoded.pixels[pixel: 0, 0].alpha == 0)
    }

    @Test func storageFormatFallsBackInOrderForAnimations() {
        let pngOnly = CodersManager(coders: [PNGCoder()])
        #expect(ImageCache.storageFormat(for: makeAnimatedImage(), coder: pngOnly) == .png)
        let webpAndPNG = CodersManager(coders: [PNGCoder(), WebPCoder()])
        #expect(ImageCache.storageFormat(for: makeAnimatedImage(), coder: webpAndPNG) == .webp)
        #expect(ImageCache.storageFormat(for: makeAnimatedImage(format: .png), coder: webpAndPNG) == .png)
        // A format the coders cannot write is replaced by the alpha rule.
        #expect(ImageCache.storageFormat(for: makeImage(format: .heic, hasAlpha: false), coder: pngOnly) == .jpeg)
    }

    @Test func aSerializerOverridesTheBytes() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        var context = ImageCacheContext()
        context.cacheSerializer = BlockCacheSerializer { _, original, key in
            Data("\(key):\(original?.count ?? -1)".utf8)
        }
        try await cache.store(makeImage(), data: Data([1, 2, 3]), forKey: "k", context: context)
        #expect(cache.diskImageData(forKey: "k") == Data("k:3".utf8))
    }

    @Test func aSerializerReturningNilStoresNothingOnDisk() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        var context = ImageCacheContext()
        context.cacheSerializer = BlockCacheSerializer { _, _, _ in nil }
        let image = makeImage()
        try await cache.store(image, data: Data([1]), forKey: "k", context: context)
        #expect(await cache.totalDiskCount() == 0)
        #expect(cache.imageFromMemoryCache(forKey: "k") === image)
    }

    @Test func derivedKeysGoBeforeThePathExtension() {
        let size = ImageSize(width: 64, height: 32)
        #expect(ImageCacheKey.thumbnailed("https://a.com/b.jpg?x=1", pixelSize: size)
                == "https://a.com/b-Thumbnail(%7B64.000000,32.000000%7D,1).jpg?x=1")
        #expect(ImageCacheKey.transformed("https://a.com/b", transformerKey: "t") == "https://a.com/b-t")
        #expect(ImageCacheKey.transformed("/tmp/a.png", transformerKey: "t") == "/tmp/a-t.png")
        // The path as written: an encoded slash is not a separator, so two URLs never share
        // a derived key.
        #expect(ImageCacheKey.thumbnailed("https://h.com/a%2Fb.jpg", pixelSize: size)
                == "https://h.com/a%2Fb-Thumbnail(%7B64.000000,32.000000%7D,1).jpg")
        #expect(ImageCacheKey.thumbnailed("https://h.com/a%2Fb.jpg", pixelSize: size) != ImageCacheKey.thumbnailed("https://h.com/a/b.jpg", pixelSize: size))
        #expect(ImageCacheKey.transformed("https://h.com/a%3Bb.png#f", transformerKey: "t") == "https://h.com/a%3Bb-t.png#f")
        // The derived key keeps the disk file's extension.
        #expect(DiskCache.pathExtension(ofKey: ImageCacheKey.thumbnailed("https://a.com/b.jpg?x=1", pixelSize: size)) == "jpg")
    }
}
