import Foundation
import Testing
@testable import WebImage

@Suite struct EXIFOrientationReaderTests {
    /// A TIFF block with one IFD of `entries` (tag, type, count, value), built by hand in
    /// either byte order; SHORT values sit in the first two bytes of the value field.
    static func tiff(littleEndian: Bool, entries: [(tag: UInt16, type: UInt16, count: UInt32, value: UInt16)], ifdOffset: UInt32 = 8) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let bytes = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return littleEndian ? bytes.reversed() : bytes
        }
        var block: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        block += u16(42) + u32(ifdOffset)
        block += [UInt8](repeating: 0, count: Int(ifdOffset) - 8)
        block += u16(UInt16(entries.count))
        for entry in entries {
            block += u16(entry.tag) + u16(entry.type) + u32(entry.count) + u16(entry.value) + [0, 0]
        }
        block += u32(0)   // no next IFD
        return block
    }

    static let exifPrefix: [UInt8] = Array("Exif".utf8) + [0, 0]

    @Test(arguments: [true, false])
    func readsEveryOrientationInEitherByteOrder(littleEndian: Bool) {
        for value in 1...8 {
            let block = Self.tiff(littleEndian: littleEndian, entries: [(0x0112, 3, 1, UInt16(value))])
            #expect(EXIFOrientationReader.orientation(inTIFF: block) == ImageOrientation(rawValue: value))
        }
    }

    @Test(arguments: [true, false])
    func findsTheTagAmongOthersAndAfterPadding(littleEndian: Bool) {
        let entries: [(tag: UInt16, type: UInt16, count: UInt32, value: UInt16)] = [
            (0x010F, 2, 6, 0x4142), (0x0110, 2, 8, 0x4344), (0x0112, 3, 1, 6), (0x011A, 5, 1, 0),
        ]
        let block = Self.tiff(littleEndian: littleEndian, entries: entries, ifdOffset: 26)
        #expect(EXIFOrientationReader.orientation(inTIFF: block) == .right)
    }

    @Test func acceptsJPEGsExifPrefix() {
        let block = Self.exifPrefix + Self.tiff(littleEndian: false, entries: [(0x0112, 3, 1, 8)])
        #expect(EXIFOrientationReader.orientation(inTIFF: block) == .left)
    }

    @Test func readsFromADataSliceThatDoesNotStartAtZero() {
        let bytes = [UInt8](repeating: 0xAA, count: 17) + Self.tiff(littleEndian: true, entries: [(0x0112, 3, 1, 3)])
        let slice = Data(bytes)[17...]
        #expect(EXIFOrientationReader.orientation(inTIFF: slice) == .down)
    }

    @Test func missingTagGivesNil() {
        let block = Self.tiff(littleEndian: true, entries: [(0x010F, 2, 6, 0), (0x0110, 2, 8, 0)])
        #expect(EXIFOrientationReader.orientation(inTIFF: block) == nil)
        #expect(EXIFOrientationReader.orientation(inTIFF: Self.tiff(littleEndian: false, entries: [])) == nil)
    }

    @Test func outOfRangeValueMeansUp() {
        let block = Self.tiff(littleEndian: true, entries: [(0x0112, 3, 1, 9)])
        #expect(EXIFOrientationReader.orientation(inTIFF: block) == .up)
    }

    @Test func badHeadersGiveNil() {
        var wrongMagic = Self.tiff(littleEndian: true, entries: [(0x0112, 3, 1, 6)])
        wrongMagic[2] = 43
        #expect(EXIFOrientationReader.orientation(inTIFF: wrongMagic) == nil)
        var wrongOrder = Self.tiff(littleEndian: true, entries: [(0x0112, 3, 1, 6)])
        wrongOrder[0] = 0x4D   // "MI"
        #expect(EXIFOrientationReader.orientation(inTIFF: wrongOrder) == nil)
        #expect(EXIFOrientationReader.orientation(inTIFF: [UInt8]()) == nil)
        #expect(EXIFOrientationReader.orientation(inTIFF: Self.exifPrefix) == nil)
    }

    /// A review's finding: of two orientation entries only the first was reset, and Pillow,
    /// which reads the last, turned the kept block's pixels a second time.
    @Test(arguments: [true, false])
    func everyRepeatedOrientationIsReset(littleEndian: Bool) {
        var block = Self.tiff(littleEndian: littleEndian, entries: [(0x0112, 3, 1, 6), (0x010F, 2, 6, 0), (0x0112, 3, 1, 8)])
        EXIFOrientationReader.resetOrientation(inTIFF: &block)
        #expect(EXIFOrientationReader.ifd0Entries(tag: 0x0112, inTIFF: block).count == 2)
        let values = EXIFOrientationReader.ifd0Entries(tag: 0x0112, inTIFF: block).map { entry in
            EXIFOrientationReader.IntegerReader(bytes: block, littleEndian: littleEndian).u16(entry + 8)
        }
        #expect(values == [1, 1])
        // Through the metadata's own reset, with JPEG's prefix and an XMP copy.
        let metadata = ImageMetadata(
            exif: Data(Self.exifPrefix + Self.tiff(littleEndian: littleEndian, entries: [(0x0112, 3, 1, 6), (0x0112, 3, 1, 6)])),
            xmp: Data(#"<x tiff:Orientation="6"/><tiff:Orientation>8</tiff:Orientation>"#.utf8)
        ).orientationReset()
        let tiff = [UInt8](metadata.exif ?? Data()).dropFirst(Self.exifPrefix.count)
        #expect(EXIFOrientationReader.orientation(inTIFF: tiff) == .up)
        #expect(String(decoding: metadata.xmp ?? Data(), as: UTF8.self) == #"<x tiff:Orientation="1"/><tiff:Orientation>1</tiff:Orientation>"#)
    }

    @Test(arguments: [true, false])
    func truncatedBlocksGiveNilAndNeverTrap(littleEndian: Bool) {
        let full = Self.tiff(littleEndian: littleEndian, entries: [(0x010F, 2, 6, 0), (0x0112, 3, 1, 6)])
        // The orientation value ends 8 (header) + 2 (count) + 12 (first entry) + 10 bytes in.
        let valueEnd = 8 + 2 + 12 + 10
        for cut in 0..<full.count {
            let result = EXIFOrientationReader.orientation(inTIFF: full.prefix(cut))
            #expect(result == (cut >= valueEnd ? .right : nil), "cut at \(cut)")
        }
    }

    @Test(arguments: [true, false])
    func offsetsAndCountsPointingPastTheEndGiveNil(littleEndian: Bool) {
        // IFD offset far beyond the block.
        var farIFD = Self.tiff(littleEndian: littleEndian, entries: [(0x0112, 3, 1, 6)])
        let far: [UInt8] = [0xFF, 0xFF, 0xFF, 0xF0]
        farIFD.replaceSubrange(4..<8, with: littleEndian ? far.reversed() : far)
        #expect(EXIFOrientationReader.orientation(inTIFF: farIFD) == nil)
        // An entry count of 65535 with one real entry, not the orientation.
        var manyEntries = Self.tiff(littleEndian: littleEndian, entries: [(0x010F, 3, 1, 6)])
        manyEntries[8] = 0xFF
        manyEntries[9] = 0xFF
        #expect(EXIFOrientationReader.orientation(inTIFF: manyEntries) == nil)
    }

    @Test func seededRandomBytesNeverTrap() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let base = Self.tiff(littleEndian: true, entries: [(0x010F, 2, 6, 0), (0x0112, 3, 1, 6)])
        var results = Set<Int>()
        for _ in 0..<2000 {
            var block = base
            for _ in 0..<3 {
                block[Int(next() % UInt64(block.count))] = UInt8(truncatingIfNeeded: next())
            }
            results.insert(EXIFOrientationReader.orientation(inTIFF: block)?.rawValue ?? 0)
        }
        // Most flips leave the tag readable; some break the header.
        #expect(results.contains(6))
        #expect(results.contains(0))
    }
}
