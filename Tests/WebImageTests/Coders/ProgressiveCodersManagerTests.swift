import Foundation
import Testing
@testable import WebImage

@Suite("CodersManager progressive decoders")
struct ProgressiveCodersManagerTests {
    private struct OverridingJPEGCoder: ImageCoder {
        func canDecode(_ data: Data) -> Bool { ImageFormat(sniffing: data) == .jpeg }
        func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
            Image(pixels: PixelBuffer(width: 1, height: 1, filling: .black))
        }
        func canEncode(to format: ImageFormat) -> Bool { false }
        func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
            throw WebImageError.unsupportedFormat(format)
        }
    }

    /// A user's progressive decoder: a uniform picture of the bytes' length, so a test can
    /// tell it was the one asked.
    private final class CountingProgressiveDecoder: ProgressiveImageCoder {
        private let received = LockedValue(0)
        var format: ImageFormat { .jpeg }
        func update(_ data: Data, isFinal: Bool) { received.withLock { $0 = data.count } }
        func currentImage(options: ImageCoderOptions) throws -> Image? {
            let count = received.withLock { $0 }
            return Image(pixels: PixelBuffer(width: count, height: 1, filling: .black), format: .jpeg)
        }
    }

    /// A user coder for JPEG that brings its own progressive decoder.
    private struct ProgressiveUserCoder: ImageCoder {
        func canDecode(_ data: Data) -> Bool { ImageFormat(sniffing: data) == .jpeg }
        func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
            Image(pixels: PixelBuffer(width: 1, height: 1, filling: .black))
        }
        func canEncode(to format: ImageFormat) -> Bool { false }
        func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
            throw WebImageError.unsupportedFormat(format)
        }
        func makeProgressiveDecoder() -> (any ProgressiveImageCoder)? { CountingProgressiveDecoder() }
    }

    @Test func picksTheDecoderForEachFormatFromItsFirstBytes() throws {
        let manager = CodersManager(coders: [JPEGCoder(), PNGCoder(), GIFCoder(), WebPCoder(), BMPCoder()])
        let cases: [(String, ImageFormat)] = [
            ("TestImage.jpg", .jpeg), ("TestImage.png", .png), ("TestImage.gif", .gif), ("TestImageStatic.webp", .webp),
        ]
        for (name, format) in cases {
            let decoder = manager.progressiveDecoder(for: try Corpus.data(name).prefix(32))
            #expect(decoder?.format == format, "\(name)")
        }
        #expect(manager.progressiveDecoder(for: Data()) == nil)
        #expect(manager.progressiveDecoder(for: Data("not an image".utf8)) == nil)
    }

    @Test func noProgressiveDecoderWhenAUserCoderOverridesTheFormat() throws {
        let manager = CodersManager(coders: [JPEGCoder(), OverridingJPEGCoder()])
        #expect(manager.progressiveDecoder(for: try Corpus.data("TestImage.jpg")) == nil)
    }

    @Test func aUserCoderSuppliesItsOwnProgressiveDecoder() throws {
        let manager = CodersManager(coders: [JPEGCoder(), ProgressiveUserCoder()])
        let jpeg = try Corpus.data("TestImage.jpg")
        let decoder = try #require(manager.progressiveDecoder(for: jpeg.prefix(32)))
        #expect(decoder is CountingProgressiveDecoder)

        // And the downloader's default partial-image decoder goes through it.
        let partial = ProgressivePartialImageDecoder(coders: manager)
        let image = try #require(partial.partialImage(from: jpeg.prefix(100), options: ImageCoderOptions()))
        #expect(image.size.width == 100)
    }
}
