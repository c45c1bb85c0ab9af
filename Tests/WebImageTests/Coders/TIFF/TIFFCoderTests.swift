import Foundation
import Testing
@testable import WebImage

/// TIFFCoder against Pillow's decodes (Fixtures/tiff/make_fixtures.py): pixel-exact for
/// every lossless layout, except associated alpha, where both sides unpremultiply the same
/// stored values with their own rounding (at most 1 level apart where alpha > 0).
@Suite struct TIFFCoderTests {
    struct Entry: Decodable {
        let width: Int
        let height: Int
        let orientation: Int
        let hasAlpha: Bool
    }

    static let manifest: [String: Entry] = {
        let url = Corpus.fixtures.appendingPathComponent("tiff/manifest.json")
        return (try? JSONDecoder().decode([String: Entry].self, from: Data(contentsOf: url))) ?? [:]
    }()

    static func fixture(_ name: String, _ ext: String = "tif") throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("tiff/\(name).\(ext)"))
    }

    @Test(arguments: [
        "rgb8", "rgba8-unassociated", "rgba8-associated", "gray8", "gray-alpha8", "palette", "bilevel", "gray16",
        "rgb8-lzw", "rgba8-deflate", "rgb8-packbits", "multipage",
        "orientation-1", "orientation-2", "orientation-3", "orientation-4",
        "orientation-5", "orientation-6", "orientation-7", "orientation-8",
    ])
    func decodesLikePillow(name: String) throws {
        let entry = try #require(Self.manifest[name])
        let data = try Self.fixture(name)
        #expect(TIFFCoder().canDecode(data))
        let image = try TIFFCoder().decode(data, options: ImageCoderOptions())
        #expect(image.format == .tiff)
        #expect(image.frameCount == 1)
        #expect(image.size == ImageSize(width: entry.width, height: entry.height))
        #expect(image.orientation == ImageOrientation(exifValue: entry.orientation))
        #expect(image.hasAlpha == entry.hasAlpha)
        let reference = [UInt8](try Self.fixture(name, "rgba"))
        try #require(reference.count == image.pixels.bytes.count)
        let tolerance = name == "rgba8-associated" ? 1 : 0
        let worst = zip(image.pixels.bytes, reference).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= tolerance, "largest difference \(worst)")
    }

    @Test(arguments: 5...8)
    func keepsStoredPixelsWhenNotApplyingOrientation(orientation: Int) throws {
        var options = ImageCoderOptions()
        options.applyOrientation = false
        let raw = try TIFFCoder().decode(Self.fixture("orientation-\(orientation)"), options: options)
        let stored = try TIFFCoder().decode(Self.fixture("orientation-1"), options: options)
        #expect(raw.size == ImageSize(width: 23, height: 17))
        #expect(raw.orientation == ImageOrientation(exifValue: orientation))
        #expect(raw.pixels == stored.pixels)
    }

    @Test func keepsLowAlphaColoursExactly() throws {
        // Unassociated alpha would lose colour if premultiplied on the way; it must not.
        let image = try TIFFCoder().decode(Self.fixture("rgba8-unassociated"), options: ImageCoderOptions())
        let pixel = image.pixels[pixel: 0, 1]
        #expect(pixel.alpha == 1)
        #expect(pixel == RGBAColor(red: 3, green: 15, blue: 40, alpha: 1))
    }

    @Test func decodesThumbnailWithinTheBox() throws {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 10, height: 10)
        let image = try TIFFCoder().decode(Self.fixture("orientation-6"), options: options)
        #expect(image.size == ImageSize(width: 7, height: 10))
        #expect(image.isThumbnail)
    }

    @Test func refusesImagesAboveThePixelLimit() throws {
        var options = ImageCoderOptions()
        options.pixelLimit = 100
        #expect(throws: WebImageError.imageTooLarge(width: 23, height: 17, limit: 100)) {
            try TIFFCoder().decode(Self.fixture("rgb8"), options: options)
        }
    }

    /// rgb8.tif with its ImageWidth and ImageLength (SHORT or LONG values in the first IFD)
    /// replaced.
    static func rgb8Claiming(width: UInt16, height: UInt16) throws -> Data {
        var bytes = [UInt8](try fixture("rgb8"))
        try #require(bytes.count > 8 && bytes[0] == 0x49)
        let ifd = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        let count = Int(bytes[ifd]) | Int(bytes[ifd + 1]) << 8
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            let tag = Int(bytes[entry]) | Int(bytes[entry + 1]) << 8
            let type = Int(bytes[entry + 2]) | Int(bytes[entry + 3]) << 8
            guard tag == 256 || tag == 257 else { continue }
            try #require(type == 3 || type == 4)
            let value = tag == 256 ? width : height
            bytes[entry + 8] = UInt8(value & 0xFF)
            bytes[entry + 9] = UInt8(value >> 8)
            if type == 4 { bytes[entry + 10] = 0; bytes[entry + 11] = 0 }
        }
        return Data(bytes)
    }

    @Test func aHeaderClaimingMoreRowsThanStoredFailsWithBadImageData() throws {
        // 23x4000 is within the pixel limit, but the strips hold only 17 rows.
        let data = try Self.rgb8Claiming(width: 23, height: 4000)
        #expect {
            try TIFFCoder().decode(data, options: ImageCoderOptions())
        } throws: { error in
            guard case WebImageError.badImageData = error else { return false }
            return true
        }
    }

    @Test func acceptsTIFFSignaturesOnly() throws {
        #expect(TIFFCoder().canDecode(Data([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8])))
        #expect(TIFFCoder().canDecode(try Corpus.data("TestImage.png")) == false)
        #expect(TIFFCoder().canEncode(to: .tiff) == false)
    }

    /// A review's finding: a 16 × 16 8-bit image whose one tile is declared 16,000 pixels a
    /// side passed the pixel limit, and libtiff's RGBA reader then allocated the whole tile
    /// (256 MB here, 768 MB in RGB) and decoded into it. Refused now from the header, for
    /// the 8-bit reader as for the 16-bit one.
    @Test func aTileFarLargerThanItsImageIsRefusedBeforeLibtiffAllocatesIt() throws {
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0]
        func u16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) { u16(v & 0xFFFF); u16(v >> 16) }
        // Grey, 8 bits, uncompressed, one 16 × 16 tile; the tile's size is patched below.
        let entries: [(tag: Int, type: Int, value: Int)] = [
            (256, 4, 16), (257, 4, 16), (258, 3, 8), (259, 3, 1), (262, 3, 1), (277, 3, 1),
            (322, 4, 16), (323, 4, 16), (324, 4, 8 + 2 + 10 * 12 + 4), (325, 4, 256),
        ]
        u16(entries.count)
        for entry in entries {
            u16(entry.tag); u16(entry.type); u32(1)
            if entry.type == 3 { u16(entry.value); u16(0) } else { u32(entry.value) }
        }
        u32(0)
        out += [UInt8](repeating: 0x80, count: 256)
        let plain = Data(out)
        #expect(try TIFFCoder().decode(plain, options: ImageCoderOptions()).size == ImageSize(width: 16, height: 16))

        var huge = plain
        for tag: UInt8 in [0x42, 0x43] {
            let entry = try #require(huge.firstRange(of: Data([tag, 0x01, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00])))
            huge.replaceSubrange(entry.upperBound..<(entry.upperBound + 4), with: [0x80, 0x3E, 0, 0])  // 16,000
        }
        do {
            _ = try TIFFCoder().decode(huge, options: ImageCoderOptions())
            Issue.record("decoded a 16 × 16 image through a 256 MB tile")
        } catch WebImageError.badImageData(let reason) {
            #expect(reason.contains("larger than the limit"), "\(reason)")
        }
    }
}
