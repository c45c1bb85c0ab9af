import Foundation
import Testing
@testable import WebImage

/// ImageMagick's raw EXIF profile in a PNG text chunk (Fixtures/png/raw-profile, made by
/// its script; exiftool reads Orientation 6 from both files and Pillow's exif_transpose
/// turns them to 8 × 12): the orientation is applied and the block kept as EXIF, as
/// Pillow does; damaged profiles are ignored, never trusted for their sizes.
@Suite struct PNGRawProfileTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("png/raw-profile").appendingPathComponent(name))
    }

    @Test(arguments: ["raw-profile-exif-ztxt.png", "raw-profile-exif-text.png"])
    func orientationInARawProfileIsApplied(file: String) throws {
        let data = try Self.fixture(file)
        let image = try PNGCoder().decode(data, options: ImageCoderOptions())
        #expect(image.orientation == .right)
        #expect(image.size == ImageSize(width: 8, height: 12))
        // The stored top-left pixel, turned 90° clockwise, is at the top right (as Pillow).
        #expect(image.pixels[pixel: 7, 0] == RGBAColor(red: 0, green: 0, blue: 0, alpha: 255))

        var options = ImageCoderOptions()
        options.readsMetadata = true
        let kept = try PNGCoder().decode(data, options: options)
        let exif = try #require(kept.metadata.exif)
        // Kept without JPEG's prefix, the orientation reset since the pixels were turned.
        #expect(EXIFOrientationReader.byteOrder(ofTIFF: [UInt8](exif)) == false)
        #expect(EXIFOrientationReader.orientation(inTIFF: exif) == .up)
        #expect(kept.metadata.copyrightOnly.exif != nil)
    }

    @Test func hexTextDecodesToTheDeclaredLength() {
        #expect(PNGRawProfile.decodedHex(Array("\nexif\n       4\n4578 6966\n".utf8)) == [0x45, 0x78, 0x69, 0x66])
        // Too few digits, a stray character, no length, a length past the limit.
        #expect(PNGRawProfile.decodedHex(Array("\nexif\n       4\n457869\n".utf8)) == nil)
        #expect(PNGRawProfile.decodedHex(Array("\nexif\n       2\n45zz\n".utf8)) == nil)
        #expect(PNGRawProfile.decodedHex(Array("\nexif\n\n4578\n".utf8)) == nil)
        #expect(PNGRawProfile.decodedHex(Array("\nexif\n99999999999\n00\n".utf8)) == nil)
    }

    /// A zTXt that claims a huge profile or whose stream is cut or would inflate past the
    /// limit: the file still decodes, unturned.
    @Test func damagedProfilesAreIgnored() throws {
        var bytes = [UInt8](try Self.fixture("raw-profile-exif-ztxt.png"))
        let keyword = Array("Raw profile type exif".utf8)
        let at = try #require(bytes.firstRange(of: keyword)).upperBound
        // Corrupt the zlib stream's first bytes after the method byte (the CRC is not checked).
        bytes[at + 2] ^= 0xFF
        bytes[at + 3] ^= 0xFF
        let image = try PNGCoder().decode(Data(bytes), options: ImageCoderOptions())
        #expect(image.orientation == .up)
        #expect(image.size == ImageSize(width: 12, height: 8))
    }
}
