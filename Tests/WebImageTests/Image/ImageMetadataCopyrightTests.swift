import Foundation
import Testing
@testable import WebImage

/// ``ImageMetadata/copyrightOnly`` and ``ImageCoderOptions/keepsCopyright``: the credit
/// survives a strip, nothing else does, checked in the written files with exiftool.
@Suite struct ImageMetadataCopyrightTests {
    /// exiftool wrote Artist "Metadata Fixture" and Copyright "CC0 swift-web-image" with
    /// GPS and the rest into these (big-endian EXIF in the JPEG, little-endian in the PNG).
    @Test(arguments: ["jpg", "png"])
    func keepsArtistAndCopyrightAlone(ext: String) throws {
        let image = try ImageMetadataTests.decode(ImageMetadataTests.fixture(ext))
        let credit = image.metadata.copyrightOnly
        #expect(credit.xmp == nil)
        let exif = try #require(credit.exif)
        #expect(EXIFOrientationReader.byteOrder(ofTIFF: [UInt8](exif)) == true)
        // Wrapped as a JPEG's APP1 would be, exiftool reads exactly the two tags.
        var options = ImageCoderOptions()
        options.metadataPolicy = .strip
        options.keepsCopyright = true
        let jpeg = try JPEGCoder().encode(image, as: .jpeg, options: options)
        let tags = try ExifTool.tags(of: jpeg, ext: "jpg")
        #expect(tags["EXIF:Artist"] as? String == "Metadata Fixture")
        #expect(tags["EXIF:Copyright"] as? String == "CC0 swift-web-image")
        #expect(tags["EXIF:GPSLatitude"] == nil)
        #expect(tags["EXIF:Orientation"] == nil)
        #expect(ExifTool.blockGroups(tags) == ["EXIF"])
    }

    @Test func withoutTheOptionAStripWritesNothing() throws {
        let image = try ImageMetadataTests.decode(ImageMetadataTests.fixture("jpg"))
        var options = ImageCoderOptions()
        options.metadataPolicy = .strip
        let tags = try ExifTool.tags(of: try JPEGCoder().encode(image, as: .jpeg, options: options), ext: "jpg")
        #expect(ExifTool.blockGroups(tags).isEmpty)
    }

    /// A little-endian TIFF block with one IFD0 entry per (tag, type, count, value bytes);
    /// values longer than four bytes follow the IFD.
    static func block(_ entries: [(tag: Int, type: Int, value: [UInt8])], badOffset: Bool = false) -> Data {
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0]
        func u16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) { u16(v & 0xFFFF); u16(v >> 16) }
        u16(entries.count)
        var offset = 8 + 2 + entries.count * 12 + 4
        for entry in entries {
            u16(entry.tag); u16(entry.type); u32(entry.value.count)
            if entry.value.count <= 4 {
                out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
            } else {
                u32(badOffset ? 60_000 : offset)
                offset += entry.value.count
            }
        }
        u32(0)
        for entry in entries where entry.value.count > 4 { out += entry.value }
        return Data(out)
    }

    @Test func shortValuesInTheEntryAndLongOnesAfterIt() throws {
        let source = Self.block([
            (0x010F, 2, Array("Camera Maker\0".utf8)),
            (0x013B, 2, Array("Al\0".utf8)),
            (0x8298, 2, Array("(c) 2026 Someone\0".utf8)),
        ])
        let credit = try #require(ImageMetadata(exif: source).copyrightOnly.exif)
        let bytes = [UInt8](credit)
        let artist = try #require(EXIFOrientationReader.ifd0Entry(tag: 0x013B, inTIFF: bytes))
        #expect(Array(bytes[artist.offset + 8..<artist.offset + 11]) == Array("Al\0".utf8))
        let copyright = try #require(EXIFOrientationReader.ifd0Entry(tag: 0x8298, inTIFF: bytes))
        let start = try #require(copyright.reader.u32(copyright.offset + 8))
        #expect(Array(bytes[start..<start + 17]) == Array("(c) 2026 Someone\0".utf8))
        #expect(EXIFOrientationReader.ifd0Entry(tag: 0x010F, inTIFF: bytes) == nil)
    }

    @Test func damagedOrMissingCreditGivesNothing() {
        #expect(ImageMetadata().copyrightOnly.isEmpty)
        #expect(ImageMetadata(exif: Self.block([(0x010F, 2, Array("Maker\0".utf8))])).copyrightOnly.isEmpty)
        // A value past the end of the block, a value that is not ASCII, a block not TIFF.
        #expect(ImageMetadata(exif: Self.block([(0x8298, 2, Array("(c) far away\0".utf8))], badOffset: true)).copyrightOnly.isEmpty)
        #expect(ImageMetadata(exif: Self.block([(0x8298, 3, [1, 0])])).copyrightOnly.isEmpty)
        #expect(ImageMetadata(exif: Data("not a tiff block at all".utf8)).copyrightOnly.isEmpty)
    }
}
