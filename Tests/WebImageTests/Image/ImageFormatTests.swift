import Foundation
import Testing
@testable import WebImage

@Suite struct ImageFormatTests {
    @Test func sniffsPNG() {
        #expect(ImageFormat(sniffing: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])) == .png)
    }

    /// Every corpus file by its magic bytes; file names are never consulted.
    @Test(arguments: [
        ("TestImage.jpg", ImageFormat.jpeg), ("TestJFIF.jpg", .jpeg), ("TestHDR.jpeg", .jpeg),
        ("TestICCProfile.jpg", .jpeg), ("MonochromeTestImage.jpg", .jpeg),
        ("TestImage.png", .png), ("TestImageAnimated.apng", .png), ("RGBA16PNG.png", .png), ("IndexedPNG.png", .png),
        ("TestImage.gif", .gif), ("1@2x.gif", .gif), ("TestLoopCount.gif", .gif),
        ("TestImageStatic.webp", .webp), ("TestImageAnimated.webp", .webp), ("TestAnimatedImageMemory.webp", .webp),
        ("TestImage.heic", .heic), ("TestHDR.heic", .heic),            // brands heic, heix
        ("TestImage.heif", .heif), ("TestImageAnimated.heics", .heif), // brands mif1, msf1
        ("TestHDR.avif", .avif),
        ("TestImage.svg", .svg), ("TestImage.pdf", .pdf),
        ("TestHDR.jxl", .jpegXL),                                       // ISO container signature
    ])
    func sniffsCorpusFile(name: String, format: ImageFormat) throws {
        #expect(ImageFormat(sniffing: try Corpus.data(name)) == format)
    }

    @Test func sniffsHandBuiltMagicBytes() {
        let cases: [([UInt8], ImageFormat)] = [
            ([0x49, 0x49, 0x2A, 0x00, 0x08, 0, 0, 0], .tiff),
            ([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 0x08], .tiff),
            (Array("BM".utf8) + [0x36, 0, 0, 0, 0, 0, 0, 0], .bmp),
            ([0xFF, 0x0A, 0xFA, 0x7F], .jpegXL),   // bare JPEG XL codestream
            ([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], .jpegXL),
            ([0, 0, 0, 0x1C] + Array("ftypavis".utf8), .avif),
            ([0, 0, 0, 0x1C] + Array("ftyphevc".utf8), .heic),
            // Generic HEIF brands: AVIF only when AVIF is among the compatible brands, and
            // only among the brands inside the box's declared size.
            ([0, 0, 0, 0x1C] + Array("ftypmif1\0\0\0\0mif1avifmiaf".utf8), .avif),
            ([0, 0, 0, 0x20] + Array("ftypmsf1\0\0\0\0msf1iso8avis".utf8), .avif),
            ([0, 0, 0, 0x1C] + Array("ftypmif1\0\0\0\0mif1heicmiaf".utf8), .heif),
            ([0, 0, 0, 0x18] + Array("ftypmif1\0\0\0\0mif1heicavif".utf8), .heif),
            ([0, 0, 0x7F, 0xFF] + Array("ftypmif1\0\0\0\0heicav".utf8), .heif),
            (Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), .svg),
            (Array("%PDF-1.7\n".utf8), .pdf),
            (Array("GIF87a".utf8) + [1, 0, 1, 0], .gif),
        ]
        for (bytes, format) in cases {
            #expect(ImageFormat(sniffing: Data(bytes)) == format, "\(bytes.prefix(12))")
        }
    }

    /// The fuzzer's file (Fuzz/findings): `ftypmsf1` listing `avif` was sniffed HEIF and
    /// decoded as AVIF. Sniffing and the decoder now name the same format.
    @Test func genericHEIFListingAVIFIsSniffedAndDecodedAsAVIF() throws {
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("fuzz/decode-msf1-brand-avif-compatible.avif"))
        #expect(ImageFormat(sniffing: data) == .avif)
        #expect(AVIFCoder().canDecode(data))
        #expect(!HEIFCoder().canDecode(data))
        let image = try CodersManager.shared.decode(data)
        #expect(image.format == .avif)
    }

    @Test func coversEveryCase() {
        // The corpus and hand-built cases above, plus `undefined` below, name all 13.
        let named: Set<ImageFormat> = [.jpeg, .png, .gif, .webp, .heic, .heif, .avif, .tiff, .bmp, .svg, .pdf, .jpegXL, .undefined]
        #expect(named == Set(ImageFormat.allCases))
    }

    @Test func emptyShortAndUnknownDataAreUndefined() {
        let cases: [[UInt8]] = [
            [], [0xFF], [0x89], [0x00], [0x3C], [0x52], [0x47],
            [0xFF, 0xD8],                                             // JPEG needs three bytes
            Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8),               // RIFF but not WebP
            [0, 0, 0, 0x18] + Array("ftypmp42".utf8),                 // an MP4 video
            [0, 0, 0, 0x18] + Array("ftyp".utf8),                     // brand cut off
            Array("<html><body>not an image</body></html>".utf8),
            Array("II*".utf8), Array("BZ".utf8), Array("hello".utf8),
        ]
        for bytes in cases {
            #expect(ImageFormat(sniffing: Data(bytes)) == .undefined, "\(bytes)")
        }
    }

    @Test func svgMarkerIsFoundAfterALongPrologue() {
        let prologue = "<?xml version=\"1.0\"?>\n<!-- " + String(repeating: "x", count: 4000) + " -->\n"
        #expect(ImageFormat(sniffing: Data((prologue + "<svg width=\"1\" height=\"1\"></svg>").utf8)) == .svg)
    }

    @Test func extensionsAndMIMETypes() {
        #expect(ImageFormat.jpeg.fileExtension == "jpg")
        #expect(ImageFormat.jpegXL.fileExtension == "jxl")
        #expect(ImageFormat.undefined.fileExtension == nil)
        #expect(ImageFormat.webp.fileExtension == "webp")
        #expect(ImageFormat.svg.mimeType == "image/svg+xml")
        #expect(ImageFormat.undefined.mimeType == "application/octet-stream")
        #expect(Set(ImageFormat.allCases.map(\.mimeType)).count == ImageFormat.allCases.count)
    }
}
