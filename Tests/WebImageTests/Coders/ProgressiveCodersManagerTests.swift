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
}
