import Foundation
import Testing
@testable import WebImage

/// ``ImageContext/imageEncodeOptions`` through ``ImageManager``: the options the cache
/// encodes a derived image (a thumbnail) with, while downloaded bytes stay as they came.
@Suite struct ImageManagerEncodeOptionsTests {
    /// Loads `/a.jpg` as a 40x40 thumbnail with `encode` and returns the disk bytes under the
    /// thumbnail key, the original's disk bytes and the loaded image.
    func thumbnailOnDisk(encode: ImageCoderOptions?) async throws -> (thumbnail: Data, original: Data?, image: Image) {
        let jpeg = try Corpus.data("TestImage.jpg")  // 80x60
        return try await LoopbackServer.with(["/a.jpg": .ok(jpeg, contentType: "image/jpeg")]) { server in
            try await ManagerHarness.with { harness in
                let url = server.url("/a.jpg")
                var context = ImageContext()
                context.thumbnailPixelSize = ImageSize(width: 40, height: 40)
                context.imageEncodeOptions = encode
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                let result = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
                let key = try #require(manager.cacheKey(for: url, context: context))
                let thumbnail = try #require(cache.diskImageData(forKey: key))
                return (thumbnail, cache.diskImageData(forKey: url.absoluteString), result.image)
            }
        }
    }

    @Test func theThumbnailIsEncodedWithTheContextsQuality() async throws {
        var low = ImageCoderOptions()
        low.compressionQuality = 0.1
        let stored = try await thumbnailOnDisk(encode: low)
        #expect(stored.image.size == ImageSize(width: 40, height: 30))
        #expect(ImageFormat(sniffing: stored.thumbnail) == .jpeg)
        // The encoder is deterministic: the disk bytes are the thumbnail encoded at 0.1.
        #expect(stored.thumbnail == (try CodersManager.shared.encode(stored.image, as: .jpeg, options: low)))
        // The downloaded original is stored as it came, whatever the encode options.
        #expect(stored.original == (try Corpus.data("TestImage.jpg")))

        let byDefault = try await thumbnailOnDisk(encode: nil)
        #expect(byDefault.thumbnail == (try CodersManager.shared.encode(byDefault.image, as: .jpeg, options: ImageCoderOptions())))
        #expect(stored.thumbnail.count * 2 < byDefault.thumbnail.count, "\(stored.thumbnail.count) vs \(byDefault.thumbnail.count) bytes")
    }

    @Test func onlyTheEncodingFieldsAreTaken() async throws {
        // Decode fields in the encode options (a different thumbnail size) change nothing
        // about the load: the thumbnail is still the context's 40x40 fit.
        var options = ImageCoderOptions()
        options.compressionQuality = 0.5
        options.thumbnailPixelSize = ImageSize(width: 8, height: 8)
        let stored = try await thumbnailOnDisk(encode: options)
        #expect(stored.image.size == ImageSize(width: 40, height: 30))
        #expect(try CodersManager.shared.decode(stored.thumbnail).size == ImageSize(width: 40, height: 30))
        var half = ImageCoderOptions()
        half.compressionQuality = 0.5
        #expect(stored.thumbnail == (try CodersManager.shared.encode(stored.image, as: .jpeg, options: half)))
    }
}
