import Foundation
import Testing
@testable import WebImage

/// The bad inputs every coder must refuse the same way — empty data, a header claiming a
/// 60000x60000 canvas, flipped bytes, truncated files, damaged bytes fed to a progressive
/// decoder — as one parameterised suite, one row per format. Format-specific outcomes of
/// corruption (a GIF's whole frames, a JPEG's grey rows) stay with that format's tests.
@Suite("Coders refuse bad input")
struct CoderBadInputTests {
    /// One format's coder and its inputs.
    struct Format: Sendable, CustomTestStringConvertible {
        let name: String
        let coder: any ImageCoder
        var testDescription: String { name }

        func decode(_ data: Data) throws -> Image {
            try coder.decode(data, options: ImageCoderOptions())
        }
    }

    static let avif = Format(name: "AVIF", coder: AVIFCoder())
    static let heif = Format(name: "HEIF", coder: HEIFCoder())
    static let tiff = Format(name: "TIFF", coder: TIFFCoder())
    static let svg = Format(name: "SVG", coder: SVGCoder())
    static let pdf = Format(name: "PDF", coder: PDFCoder())
    static let jxl = Format(name: "JPEG XL", coder: JXLCoder())

    @Test(arguments: [
        (avif, "empty AVIF data"), (heif, "empty HEIF data"), (tiff, "empty TIFF data"),
        (Format(name: "BMP", coder: BMPCoder()), "empty data"), (Format(name: "JPEG", coder: JPEGCoder()), "empty data"),
        (Format(name: "PNG", coder: PNGCoder()), "empty data"), (Format(name: "GIF", coder: GIFCoder()), "empty data"),
        (svg, "empty data"), (pdf, "empty data"), (jxl, "empty data"),
    ])
    func emptyDataIsBadImageData(format: Format, message: String) {
        #expect(throws: WebImageError.badImageData(message)) { try format.decode(Data()) }
    }

    /// A copy of a real file whose header claims 60000x60000.
    @Test(arguments: [avif, heif, tiff, svg, pdf, jxl])
    func refusesAHeaderClaiming60000x60000Quickly(format: Format) throws {
        let data: Data
        switch format.name {
        case "SVG": data = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="60000" height="60000"/>"#.utf8)
        // A page of 60000 points square (833 inches).
        case "PDF": data = PDFDocuments.make(pages: [.init(width: 60000, height: 60000, color: (0, 0, 0))])
        case "JPEG XL": data = JXLCoderTests.codestreamClaiming(width: 60000, height: 60000)
        case "AVIF": data = Data(try ISOBoxes.claiming60000Square([UInt8](AVIFCoderTests.fixture("orientation-1.avif"))))
        // TestImage.heif has no crop, so its `ispe` boxes (image and thumbnail) set the size.
        case "HEIF": data = Data(try ISOBoxes.claiming60000Square([UInt8](Corpus.data("TestImage.heif"))))
        default: data = try TIFFCoderTests.rgb8Claiming(width: 60000, height: 60000)
        }
        CorruptInputChecks.expectRefuses60000SquareQuickly(data) { try format.decode($0) }
    }

    @Test(arguments: [
        (avif, ["orientation-6.avif", "alpha.avif", "animated.avif"], UInt64(0x4156_4946), 150),
        (heif, ["orientation-6.heic"], UInt64(0x4845_4946), 300),
        (tiff, ["rgb8-lzw", "rgba8-deflate", "palette", "gray16", "orientation-6"], UInt64(0x5449_4646), 200),
        (svg, ["TestImage.svg", "units.svg"], UInt64(0x5356_4720), 150),
        (pdf, ["TestImage.pdf"], UInt64(0x5044_4620), 200),
        (jxl, ["lossless-alpha.jxl", "animated.jxl", "TestHDR.jxl"], UInt64(0x4A58_4C20), 60),
    ])
    func flippedBytesNeverCrashOrHang(format: Format, fixtures: [String], seed: UInt64, count: Int) throws {
        let start = ContinuousClock.now
        for name in fixtures {
            let copies = try CorruptInputs.byteFlips(of: Self.fixture(name, of: format), seed: seed, count: count)
            try CorruptInputChecks.expectErrorOrWholeImage(decoding: copies) { try format.decode($0) }
        }
        #expect(ContinuousClock.now - start < Duration.seconds(20).scaled)
    }

    /// The files marked `true` are in SDWebImage's corpus, the others fixtures. The TIFF
    /// files have one page; a multi-page one is the next test.
    @Test(arguments: [
        (avif, [("TestHDR.avif", true), ("animated.avif", false)]),
        (heif, [("TestImage.heic", true), ("orientation-6.heic", false)]),
        (tiff, [("rgb8", false), ("rgb8-lzw", false), ("rgba8-deflate", false), ("palette", false)]),
        (svg, [("TestImage.svg", true), ("units.svg", false)]),
        (jxl, [("TestHDR.jxl", true), ("lossless-alpha.jxl", false), ("animated.jxl", false)]),
    ])
    func truncatedDataFailsWithBadImageData(format: Format, files: [(String, Bool)]) throws {
        var prefixes: [Data] = []
        for (name, inCorpus) in files {
            let data = try inCorpus ? Corpus.data(name) : Self.fixture(name, of: format)
            prefixes += CorruptInputs.truncations(of: data, count: 24)
        }
        try CorruptInputChecks.expectPrefixesAreBadImageData(prefixes) { try format.decode($0) }
    }

    /// A cut after the first page's data of a multi-page TIFF still decodes that page in
    /// full; any other cut must fail, never give partial pixels.
    @Test func truncatedMultiPageTIFFFailsOrStillGivesTheWholeFirstPage() throws {
        let data = try TIFFCoderTests.fixture("multipage")
        let full = try Self.tiff.decode(data)
        for prefix in CorruptInputs.truncations(of: data, count: 24) {
            do {
                let image = try Self.tiff.decode(prefix)
                #expect(image.pixels == full.pixels, "a \(prefix.count)-byte prefix gave other pixels")
            } catch let error as WebImageError {
                guard case .badImageData = error else { Issue.record("unexpected \(error)"); continue }
            }
        }
    }

    /// poppler rebuilds the cross-reference table of a cut PDF by scanning what is there,
    /// so a cut after the page's content may still render it: a prefix gives an error or
    /// the whole page at its size, never a crash or garbage of another size.
    @Test func truncatedPDFFailsOrRendersTheWholePage() throws {
        var prefixes = CorruptInputs.truncations(of: try Corpus.data("TestImage.pdf"), count: 40)
        prefixes += CorruptInputs.truncations(of: PDFDocuments.make(pages: [.init(width: 20, height: 10, color: (9, 9, 9))]), count: 40)
        var refused = 0
        for prefix in prefixes {
            do {
                let image = try Self.pdf.decode(prefix)
                #expect([ImageSize(width: 36, height: 36), ImageSize(width: 20, height: 10)].contains(image.size))
            } catch let error as WebImageError {
                guard case .badImageData = error else { Issue.record("unexpected \(error)"); continue }
                refused += 1
            }
        }
        #expect(refused > 0)
    }

    /// A progressive decoder fed damaged copies of a file (`count` copies with bytes
    /// flipped from `seed`), a prefix at a time from `firstCut` every `step` bytes, never
    /// crashes or hangs, and its final image is the format's one-shot decode of the copy:
    /// every frame compared, or (`firstFrameOnly`, JPEG) the pixels of the one frame.
    @Test(arguments: [
        (Format(name: "JPEG", coder: JPEGCoder()), "TestImage.jpg", UInt64(3), 64, 256, true),
        (Format(name: "PNG", coder: PNGCoder()), "IndexedPNG.png", UInt64(5), 40, 500, false),
        (Format(name: "GIF", coder: GIFCoder()), "TestImage.gif", UInt64(17), 10, 300, false),
        (Format(name: "WebP", coder: WebPCoder()), "webp/lossless_alpha.webp", UInt64(13), 16, 50, false),
    ])
    func progressiveDecoderSurvivesCorruptCopies(
        format: Format, file: String, seed: UInt64, firstCut: Int, step: Int, firstFrameOnly: Bool
    ) throws {
        // Names with a folder are fixtures; the others are in SDWebImage's corpus.
        let data = try file.contains("/")
            ? Data(contentsOf: Corpus.fixtures.appendingPathComponent(file))
            : Corpus.data(file)
        // Copies the one-shot decode takes: with none, each comparison below is nil == nil.
        // PNG (its CRCs) and lossless WebP refuse every flipped copy, so for them the
        // damaged copies check that both refuse, and the intact file, first, is the image
        // compared; JPEG and GIF decode most damaged copies too.
        var decoded = 0
        for copy in [data] + CorruptInputs.byteFlips(of: data, seed: seed, count: 40) {
            let decoder = try #require(format.coder.makeProgressiveDecoder())
            for end in stride(from: firstCut, through: copy.count, by: step) {
                decoder.update(copy.prefix(end), isFinal: false)
                _ = try? decoder.currentImage(options: ImageCoderOptions())
            }
            decoder.update(copy, isFinal: true)
            let final = try? decoder.currentImage(options: ImageCoderOptions())
            let oneShot = try? format.decode(copy)
            if oneShot != nil { decoded += 1 }
            if firstFrameOnly {
                #expect(final?.pixels == oneShot?.pixels)
            } else {
                #expect(final?.frames == oneShot?.frames)
            }
        }
        #expect(decoded > 0, "no copy of \(file) decoded, not even the intact one")
    }

    private static func fixture(_ name: String, of format: Format) throws -> Data {
        switch format.name {
        case "AVIF": try AVIFCoderTests.fixture(name)
        case "HEIF": try HEIFCoderTests.fixture(name)
        case "SVG" where name == "units.svg": try Data(contentsOf: Corpus.fixtures.appendingPathComponent("vector/units.svg"))
        case "SVG", "PDF": try Corpus.data(name)
        case "JPEG XL" where name.hasPrefix("Test"): try Corpus.data(name)
        case "JPEG XL": try JXLCoderTests.fixture(name)
        default: try TIFFCoderTests.fixture(name)
        }
    }
}
