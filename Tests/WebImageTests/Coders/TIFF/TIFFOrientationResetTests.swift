import Foundation
import Testing
@testable import WebImage

/// A TIFF's kept orientations after a decode that turned its pixels upright, on hand-built
/// files: libtiff reads the orientation tag from any integer type, so every such type is
/// reset to 1 in the kept EXIF (a review found BYTE, SSHORT and big-endian LONG left at 6,
/// turning the image again when read back); and libtiff reads no XMP, so XMP's orientation
/// is reset only when the pixels were turned (it was set to 1 even when they were not).
@Suite struct TIFFOrientationResetTests {
    /// A 2 × 1 grey TIFF (pixels 10 and 200), uncompressed, with an orientation entry of
    /// `type` holding `value` when one is given and an XMP packet when `xmp` is given.
    static func tiff(littleEndian: Bool, orientation: (type: UInt16, value: UInt32)?, xmp: String? = nil) -> Data {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let bytes = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return littleEndian ? bytes.reversed() : bytes
        }
        /// A value of `type` in the first bytes of the four-byte field, as TIFF places it.
        func inline(_ type: UInt16, _ value: UInt32) -> [UInt8] {
            switch type {
            case 1, 6: return [UInt8(value), 0, 0, 0]
            case 3, 8: return u16(UInt16(value)) + [0, 0]
            default: return u32(value)
            }
        }
        let xmpBytes = Array((xmp ?? "").utf8)
        var entries: [(tag: UInt16, type: UInt16, count: UInt32, field: [UInt8])] = [
            (256, 3, 1, inline(3, 2)), (257, 3, 1, inline(3, 1)), (258, 3, 1, inline(3, 8)),
            (259, 3, 1, inline(3, 1)), (262, 3, 1, inline(3, 1)), (273, 4, 1, []),
        ]
        if let orientation { entries.append((274, orientation.type, 1, inline(orientation.type, orientation.value))) }
        entries += [(277, 3, 1, inline(3, 1)), (278, 3, 1, inline(3, 1)), (279, 4, 1, inline(4, 2))]
        if xmp != nil { entries.append((700, 1, UInt32(xmpBytes.count), [])) }
        // Header, directory, then the pixels and the XMP after it; the two offsets (the
        // strip's, tag 273, and the XMP's) are filled in as the directory is written.
        let directorySize = 2 + entries.count * 12 + 4
        let pixelsAt = UInt32(8 + directorySize)
        let xmpAt = pixelsAt + 2
        var file: [UInt8] = (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8) + u16(UInt16(entries.count))
        for entry in entries.sorted(by: { $0.tag < $1.tag }) {
            let field = entry.tag == 700 ? u32(xmpAt) : entry.tag == 273 ? u32(pixelsAt) : entry.field
            file += u16(entry.tag) + u16(entry.type) + u32(entry.count) + field
        }
        return Data(file + u32(0) + [10, 200] + xmpBytes)
    }

    static func decode(_ data: Data) throws -> Image {
        var options = ImageCoderOptions()
        options.readsMetadata = true
        return try TIFFCoder().decode(data, options: options)
    }

    /// The kept EXIF's orientation entry: its type and the value in its own width.
    static func keptOrientation(_ image: Image) throws -> (type: Int, value: Int) {
        let exif = [UInt8](try #require(image.metadata.exif))
        let entry = try #require(EXIFOrientationReader.ifd0Entry(tag: 0x0112, inTIFF: exif))
        let type = try #require(entry.reader.u16(entry.offset + 2))
        let value: Int? = switch type {
        case 1, 6: Int(exif[entry.offset + 8])
        case 3, 8: entry.reader.u16(entry.offset + 8)
        default: entry.reader.u32(entry.offset + 8)
        }
        return (type, try #require(value))
    }

    @Test(arguments: [true, false], [UInt16(1), 3, 4, 6, 8, 9])
    func everyIntegerTypeLibtiffAppliesIsResetToOne(littleEndian: Bool, type: UInt16) throws {
        let image = try Self.decode(Self.tiff(littleEndian: littleEndian, orientation: (type, 6)))
        // 6: turned a quarter clockwise, 2 × 1 becomes 1 × 2.
        #expect(image.size == ImageSize(width: 1, height: 2), "libtiff read type \(type)")
        let kept = try Self.keptOrientation(image)
        #expect(kept.type == Int(type))
        #expect(kept.value == 1, "type \(type), \(littleEndian ? "little" : "big")-endian")
    }

    @Test func xmpOrientationIsResetOnlyWhenThePixelsWereTurned() throws {
        let packet = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/></rdf:RDF></x:xmpmeta>"#
        // No orientation tag: libtiff turns nothing, and XMP's 6 stays for whoever reads it.
        let upright = try Self.decode(Self.tiff(littleEndian: true, orientation: nil, xmp: packet))
        #expect(upright.size == ImageSize(width: 2, height: 1))
        let kept = String(decoding: try #require(upright.metadata.xmp), as: UTF8.self)
        #expect(kept.contains(#"tiff:Orientation="6""#), "\(kept)")
        // The tag turned the pixels: both copies say 1 now.
        let turned = try Self.decode(Self.tiff(littleEndian: true, orientation: (3, 6), xmp: packet))
        #expect(turned.size == ImageSize(width: 1, height: 2))
        let reset = String(decoding: try #require(turned.metadata.xmp), as: UTF8.self)
        #expect(reset.contains(#"tiff:Orientation="1""#), "\(reset)")
    }
}
