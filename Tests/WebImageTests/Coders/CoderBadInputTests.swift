import Foundation
import Testing
@testable import WebImage

/// The bad inputs every coder must refuse the same way — empty data, a header claiming a
/// 60000x60000 canvas, flipped bytes, truncated files — as one parameterised suite, one
/// row per format. Format-specific corruption (a TIFF's multi-page cut, a GIF's whole
/// frames, a JPEG's grey rows) stays with that format's tests.
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

    @Test(arguments: [
        (avif, "empty AVIF data"), (heif, "empty HEIF data"), (tiff, "empty TIFF data"),
        (Format(name: "BMP", coder: BMPCoder()), "empty data"), (Format(name: "JPEG", coder: JPEGCoder()), "empty data"),
        (Format(name: "PNG", coder: PNGCoder()), "empty data"), (Format(name: "GIF", coder: GIFCoder()), "empty data"),
    ])
    func emptyDataIsBadImageData(format: Format, message: String) {
        #expect(throws: WebImageError.badImageData(message)) { try format.decode(Data()) }
    }

    /// A copy of a real file whose header claims 60000x60000.
    @Test(arguments: [avif, heif, tiff])
    func refusesAHeaderClaiming60000x60000Quickly(format: Format) throws {
        let data: Data
        switch format.name {
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
    ])
    func flippedBytesNeverCrashOrHang(format: Format, fixtures: [String], seed: UInt64, count: Int) throws {
        let start = Date()
        for name in fixtures {
            let copies = try CorruptInputs.byteFlips(of: Self.fixture(name, of: format), seed: seed, count: count)
            try CorruptInputChecks.expectErrorOrWholeImage(decoding: copies) { try format.decode($0) }
        }
        #expect(Date().timeIntervalSince(start) < 20)
    }

    /// The first file of each row is in SDWebImage's corpus, the second a fixture.
    @Test(arguments: [
        (avif, [("TestHDR.avif", true), ("animated.avif", false)]),
        (heif, [("TestImage.heic", true), ("orientation-6.heic", false)]),
    ])
    func truncatedDataFailsWithBadImageData(format: Format, files: [(String, Bool)]) throws {
        var prefixes: [Data] = []
        for (name, inCorpus) in files {
            let data = try inCorpus ? Corpus.data(name) : Self.fixture(name, of: format)
            prefixes += CorruptInputs.truncations(of: data, count: 24)
        }
        try CorruptInputChecks.expectPrefixesAreBadImageData(prefixes) { try format.decode($0) }
    }

    private static func fixture(_ name: String, of format: Format) throws -> Data {
        switch format.name {
        case "AVIF": try AVIFCoderTests.fixture(name)
        case "HEIF": try HEIFCoderTests.fixture(name)
        default: try TIFFCoderTests.fixture(name)
        }
    }
}
