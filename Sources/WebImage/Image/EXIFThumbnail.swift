import Foundation

/// Takes the thumbnail out of an EXIF block that is written again: IFD1, the small JPEG a
/// camera or editor stores beside the picture.
///
/// An encoder that keeps the metadata (``ImageCoderOptions/MetadataPolicy/all``) writes
/// the block it was given, and its thumbnail shows the source as it was: uncropped,
/// unblurred, in its stored orientation after the decoder reset IFD0's to upright. File
/// browsers show that thumbnail in place of the picture; for a blurred or cropped result
/// it is the part someone meant to hide. The thumbnail goes, whatever was done to the
/// pixels: a re-encode is a new picture.
///
/// ```swift
/// let kept = EXIFThumbnail.removed(from: image.metadata.exif)
/// ```
enum EXIFThumbnail {
    /// `block` (TIFF-structured, optionally after JPEG's `Exif\0\0`) without its IFD1:
    /// IFD0's link to it is cleared, and the directory and the thumbnail's bytes are zeroed,
    /// so neither a reader nor a scan for an embedded picture finds them. The thumbnail is
    /// found as EXIF 2.32 stores it: a JPEG by `JPEGInterchangeFormat` and its length, or
    /// uncompressed strips by `StripOffsets` and `StripByteCounts`, each SHORT or LONG.
    /// Unchanged when the block has no IFD1, is not TIFF, or links to an IFD1 that would
    /// overlap the header or IFD0 (a damaged link: no reader takes it for a thumbnail);
    /// every offset is checked against the bytes present, and the header and IFD0 are
    /// never zeroed. `nil` when the thumbnail cannot all be found cheaply (more than
    /// ``maximumStrips`` strips, or thumbnail tags repeated past as many values): such a
    /// block is dropped rather than written with part of a thumbnail in it.
    static func removed(from block: Data) -> Data? {
        var bytes = [UInt8](block)
        let start = bytes.starts(with: ImageMetadata.jpegEXIFPrefix) ? ImageMetadata.jpegEXIFPrefix.count : 0
        var tiff = Array(bytes[start...])
        switch removeIFD1(inTIFF: &tiff) {
        case .none: return block
        case .unsafe: return nil
        case .removed:
            bytes.replaceSubrange(start..., with: tiff)
            return Data(bytes)
        }
    }

    /// More strips than any thumbnail has (a 160 × 120 one has one to a few dozen), and few
    /// enough that finding them all stays cheap.
    static let maximumStrips = 4096

    private enum Removal { case none, removed, unsafe }

    /// Clears IFD1 in the TIFF-structured `bytes`.
    private static func removeIFD1(inTIFF bytes: inout [UInt8]) -> Removal {
        guard let little = EXIFOrientationReader.byteOrder(ofTIFF: bytes) else { return .none }
        let reader = EXIFOrientationReader.IntegerReader(bytes: bytes, littleEndian: little)
        guard let ifd0 = reader.u32(4), let count0 = reader.u16(ifd0) else { return .none }
        let link = ifd0 + 2 + count0 * 12
        guard let ifd1 = reader.u32(link), ifd1 > 0, let count1 = reader.u16(ifd1) else { return .none }
        let directory = ifd1..<ifd1 + 2 + count1 * 12 + 4
        let protected = [0..<8, ifd0..<link + 4]
        guard !protected.contains(where: { $0.overlaps(directory) }) else { return .none }
        // Every entry of the four tags, repeats too (readers differ on which repeat they
        // keep: libexif the last, Exiv2 the first), with one count of values for them all:
        // IFD1 may hold 65,535 entries of 4,096 values each, and reading them all took a
        // hostile 800 KB block most of a minute.
        var found: [Int: [Int]] = [:]
        var valueCount = 0
        for index in 0..<count1 {
            let entry = ifd1 + 2 + index * 12
            guard let tag = reader.u16(entry) else { break }
            guard [0x0201, 0x0202, 0x0111, 0x0117].contains(tag) else { continue }
            valueCount += reader.u32(entry + 4) ?? 0
            guard valueCount <= 2 * (maximumStrips + 1), let values = values(of: entry, reader) else { return .unsafe }
            found[tag, default: []] += values
        }
        var ranges: [Range<Int>] = []
        let jpeg = (offset: found[0x0201] ?? [], length: found[0x0202] ?? [])
        let strips = (offset: found[0x0111] ?? [], length: found[0x0117] ?? [])
        for (offsets, lengths) in [jpeg, strips] {
            for (offset, length) in zip(offsets, lengths) where offset < bytes.count {
                ranges.append(offset..<offset + min(length, bytes.count - offset))
            }
        }
        // JPEG thumbnails without their length: each runs to its end marker, when what the
        // offset names is a JPEG past IFD1's directory (a bogus offset zeroed to the end of
        // the block would take the EXIF sub-directory with it). In ascending order, each
        // once, and none that starts inside one already found (whose start marker is zeroed
        // with it), so no byte is scanned twice: thousands of offsets naming one JPEG of a
        // megabyte took billions of steps.
        var scannedTo = 0
        for offset in Set(jpeg.offset.dropFirst(jpeg.length.count)).sorted()
        where offset >= max(directory.upperBound, scannedTo) && offset + 1 < bytes.count && bytes[offset] == 0xFF && bytes[offset + 1] == 0xD8 {
            scannedTo = jpegEnd(in: bytes, from: offset)
            ranges.append(offset..<scannedTo)
        }
        ranges.append(directory.clamped(to: 0..<bytes.count))
        // Sorted and merged, so overlapping strips are zeroed once; the header and IFD0 are
        // cut out of every range.
        var end = 0
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            for index in max(range.lowerBound, end)..<max(range.upperBound, end)
            where !protected.contains(where: { $0.contains(index) }) {
                bytes[index] = 0
            }
            end = max(end, range.upperBound)
        }
        for index in link..<min(link + 4, bytes.count) { bytes[index] = 0 }
        return .removed
    }

    /// Where the JPEG starting at `start` (its FF D8) ends: past its EOI, found by stepping
    /// over its segments by their lengths and then through the entropy-coded data (where FF
    /// is followed by 00 or a restart marker), since a segment's payload may hold FF D9.
    /// The block's end when the JPEG is cut or damaged.
    private static func jpegEnd(in bytes: [UInt8], from start: Int) -> Int {
        var at = start + 2
        while at + 1 < bytes.count {
            guard bytes[at] == 0xFF else { return bytes.count }
            let marker = bytes[at + 1]
            switch marker {
            case 0xD9:
                return at + 2
            case 0xFF, 0x01, 0xD0...0xD7:
                at += marker == 0xFF ? 1 : 2
            case 0xDA:
                // The scan header, then entropy-coded data up to the next real marker.
                guard at + 3 < bytes.count else { return bytes.count }
                at += 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
                while at + 1 < bytes.count, !(bytes[at] == 0xFF && bytes[at + 1] != 0x00 && !(0xD0...0xD7).contains(bytes[at + 1])) {
                    at += 1
                }
            default:
                guard at + 3 < bytes.count else { return bytes.count }
                at += 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
            }
        }
        return bytes.count
    }

    /// The values of a SHORT or LONG entry, inline when they fit its four bytes; `nil` for
    /// another type or more than ``maximumStrips`` values. Values past the bytes present
    /// are left out.
    private static func values(of entry: Int, _ reader: EXIFOrientationReader.IntegerReader<[UInt8]>) -> [Int]? {
        guard let type = reader.u16(entry + 2), let count = reader.u32(entry + 4), count <= maximumStrips else { return nil }
        let width: Int
        switch type {
        case 3: width = 2
        case 4: width = 4
        default: return nil
        }
        let base = count * width <= 4 ? entry + 8 : reader.u32(entry + 8)
        guard let base else { return [] }
        return (0..<count).compactMap { index in
            width == 2 ? reader.u16(base + index * 2) : reader.u32(base + index * 4)
        }
    }
}
