import Foundation
import Testing
@testable import WebImage

/// ``ImageCoderOptions/formatHint`` (SDWebImage's `imageTypeIdentifierHint`): bytes that do
/// not name their format decode as the hinted one when a coder accepts them as such, bytes
/// that do name one decode as that whatever the hint, and without a hint nothing changes.
@Suite struct FormatHintTests {
    /// The corpus SVG after a UTF-8 byte-order mark and a blank line, as some editors save
    /// it: the first byte is not `<`, so sniffing does not recognise it.
    static func markedSVG() throws -> Data {
        Data([0xEF, 0xBB, 0xBF]) + Data("\r\n\n  ".utf8) + (try Corpus.data("TestImage.svg"))
    }

    /// The library's coders with SVG and PDF, which the shared manager leaves out.
    static let documents = CodersManager(coders: CodersManager.builtInCodersWithDocuments)

    static func hinted(_ format: ImageFormat?) -> ImageCoderOptions {
        var options = ImageCoderOptions()
        options.formatHint = format
        return options
    }

    @Test func anSVGAfterAByteOrderMarkDecodesWithTheHintOnly() throws {
        let data = try Self.markedSVG()
        #expect(ImageFormat(sniffing: data) == .undefined)
        #expect(throws: WebImageError.badImageData("unrecognised image format")) {
            try Self.documents.decode(data)
        }
        let image = try Self.documents.decode(data, options: Self.hinted(.svg))
        let plain = try Self.documents.decode(Corpus.data("TestImage.svg"))
        #expect(image.format == .svg)
        #expect(image.size == ImageSize(width: 131, height: 76))
        #expect(image.pixels == plain.pixels)
    }

    @Test func anotherFormatsHintDoesNotHelp() throws {
        let data = try Self.markedSVG()
        for hint in [ImageFormat.png, .jpeg, .pdf, .webp, .undefined] {
            #expect(throws: WebImageError.badImageData("unrecognised image format")) {
                try CodersManager.shared.decode(data, options: Self.hinted(hint))
            }
        }
    }

    @Test func aPDFAfterLeadingBytesDecodesWithTheHintOnly() throws {
        let pdf = try Corpus.data("TestImage.pdf")
        let data = Data(repeating: 0x20, count: 100) + Data("junk\n".utf8) + pdf
        #expect(ImageFormat(sniffing: data) == .undefined)
        #expect(throws: WebImageError.badImageData("unrecognised image format")) {
            try CodersManager(coders: CodersManager.builtInCodersWithDocuments).decode(data)
        }
        let image = try CodersManager(coders: CodersManager.builtInCodersWithDocuments).decode(data, options: Self.hinted(.pdf))
        #expect(image.format == .pdf)
        #expect(image.pixels == (try CodersManager(coders: CodersManager.builtInCodersWithDocuments).decode(pdf)).pixels)
        // A header past the first kilobyte is not where readers look for it.
        let late = Data(repeating: 0x20, count: 1100) + pdf
        #expect(!PDFCoder().canDecode(late, hintedAs: .pdf))
    }

    /// A hint never overrides what the bytes say: a PNG told it is an SVG is a PNG.
    @Test func bytesThatNameTheirFormatIgnoreTheHint() throws {
        let png = try Corpus.data("TestImage.png")
        let image = try CodersManager.shared.decode(png, options: Self.hinted(.svg))
        #expect(image.format == .png)
        #expect(image.pixels == (try CodersManager.shared.decode(png)).pixels)
    }

    @Test func theSVGCoderAcceptsMarkupOnlyWithItsOwnHint() {
        let coder = SVGCoder()
        #expect(coder.canDecode(Data("\u{FEFF}<svg/>".utf8), hintedAs: .svg))
        #expect(coder.canDecode(Data(" \t\n<?xml version=\"1.0\"?>".utf8), hintedAs: .svg))
        #expect(!coder.canDecode(Data("\u{FEFF}<svg/>".utf8), hintedAs: .png))
        #expect(!coder.canDecode(Data("hello <svg/>".utf8), hintedAs: .svg))
        #expect(!coder.canDecode(Data(), hintedAs: .svg))
        #expect(!coder.canDecode(Data(repeating: 0x20, count: 5000) + Data("<svg/>".utf8), hintedAs: .svg))
        // Raster coders take no hint.
        #expect(!PNGCoder().canDecode(Data("<svg/>".utf8), hintedAs: .png))
    }

    /// A user's coder for a format without a signature takes part through the hint.
    @Test func aUsersCoderDecodesItsHintedFormat() throws {
        struct RawGreyCoder: ImageCoder {
            // 2×1 grey bytes with no header: only a hint can say what they are.
            func canDecode(_ data: Data) -> Bool { false }
            func canDecode(_ data: Data, hintedAs format: ImageFormat) -> Bool { format == .bmp && data.count == 2 }
            func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
                var pixels = PixelBuffer(width: 2, height: 1, filling: RGBAColor(red: 0, green: 0, blue: 0, alpha: 255))
                for x in 0..<2 { pixels[pixel: x, 0] = RGBAColor(red: data[x], green: data[x], blue: data[x], alpha: 255) }
                return Image(pixels: pixels, format: .bmp)
            }
            func canEncode(to format: ImageFormat) -> Bool { false }
            func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
                throw WebImageError.unsupportedFormat(format)
            }
        }
        let manager = CodersManager()
        manager.addCoder(RawGreyCoder())
        let image = try manager.decode(Data([10, 200]), options: Self.hinted(.bmp))
        #expect(image.pixels[pixel: 1, 0] == RGBAColor(red: 200, green: 200, blue: 200, alpha: 255))
        #expect(manager.canDecode(Data([10, 200]), hintedAs: .bmp))
        #expect(throws: WebImageError.self) { try manager.decode(Data([10, 200])) }
    }
}
