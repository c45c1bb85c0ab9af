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
    /// never zeroed. `nil` when the thumbnail cannot all be found (more than
    /// ``maximumStrips`` strips): such a block is dropped rather than written with part of
    /// a thumbnail in it.
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
        // The last entry of each tag is the one a reader keeps. Found first and read once:
        // reading every repeat (IFD1 may hold 65,535 entries of 4,096 values each) made a
        // hostile 800 KB block take most of a minute.
        var last: [Int: Int] = [:]
        for index in 0..<count1 {
            let entry = ifd1 + 2 + index * 12
            guard let tag = reader.u16(entry) else { break }
            if [0x0201, 0x0202, 0x0111, 0x0117].contains(tag) { last[tag] = entry }
        }
        var found: [Int: [Int]] = [:]
        for (tag, entry) in last {
            guard let values = values(of: entry, reader) else { return .unsafe }
            found[tag] = values
        }
        var ranges: [Range<Int>] = []
        let jpeg = (offset: found[0x0201] ?? [], length: found[0x0202] ?? [])
        let strips = (offset: found[0x0111] ?? [], length: found[0x0117] ?? [])
        for (offsets, lengths) in [jpeg, strips] {
            for (offset, length) in zip(offsets, lengths) where offset < bytes.count {
                ranges.append(offset..<offset + min(length, bytes.count - offset))
            }
        }
        // A JPEG thumbnail without its length runs to its end marker (a JPEG's only FF D9
        // outside its segments), or to the block's end.
        if let offset = jpeg.offset.first, jpeg.length.isEmpty, offset < bytes.count {
            let end = (offset..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD9 }.map { $0 + 2 } ?? bytes.count
            ranges.append(offset..<end)
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
