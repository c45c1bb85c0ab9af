/// Reads the orientation tag (0x0112) from an EXIF block, and resets it to 1 in a kept one.
///
/// JPEG (APP1), PNG (`eXIf`), WebP (`EXIF` chunk) and HEIF all carry the same TIFF-structured
/// EXIF payload, so the coders share this reader. It checks every offset against the bytes
/// present and returns `nil` rather than trapping on a malformed block.
///
/// ```swift
/// let orientation = EXIFOrientationReader.orientation(inTIFF: payload) ?? .up
/// ```
public enum EXIFOrientationReader {
    /// The orientation in a TIFF-structured block (starting `II*\0` or `MM\0*`), optionally
    /// preceded by JPEG's `Exif\0\0` prefix.
    public static func orientation<C: Collection>(inTIFF block: C) -> ImageOrientation? where C.Element == UInt8 {
        var bytes = [UInt8](block)
        if bytes.starts(with: ImageMetadata.jpegEXIFPrefix) {
            bytes.removeFirst(ImageMetadata.jpegEXIFPrefix.count)
        }
        // Only the entries ``resetOrientation(inTIFF:)`` can rewrite (one SHORT, or one
        // little-endian LONG): an orientation applied but left in a kept block would turn
        // the pixels a second time when read again.
        guard let entry = orientationEntry(inTIFF: bytes), orientationValue(inTIFF: bytes) != nil,
              let value = entry.reader.u16(entry.offset + 8) else { return nil }
        return ImageOrientation(exifValue: value)
    }

    /// Whether `bytes` start with a TIFF header: `true` for little-endian (`II*\0`),
    /// `false` for big-endian (`MM\0*`), `nil` for anything else.
    static func byteOrder<Bytes: RandomAccessCollection<UInt8>>(ofTIFF bytes: Bytes) -> Bool? where Bytes.Index == Int {
        guard bytes.count >= 8 else { return nil }
        let first = bytes.startIndex
        switch (bytes[first], bytes[first + 1], bytes[first + 2], bytes[first + 3]) {
        case (0x49, 0x49, 0x2A, 0x00): return true
        case (0x4D, 0x4D, 0x00, 0x2A): return false
        default: return nil
        }
    }

    /// Rewrites the orientation value in IFD0 of the TIFF-structured `bytes` to 1 (upright)
    /// in place, in the block's own byte order: what a kept EXIF must say once the decoder
    /// turned the pixels. Leaves the block alone when it has no orientation tag, or one
    /// that is neither the single SHORT the standard defines nor a single little-endian
    /// LONG (which reads as the orientation it holds, so the decoder applied it). With
    /// `anyIntegerType`, any single integer is reset (BYTE, SBYTE, SHORT, SSHORT, LONG,
    /// SLONG, in either byte order): libtiff reads the tag from all of them, so the TIFF
    /// decoder turned the pixels by any of them.
    ///
    /// Every orientation entry of IFD0 is reset, not only the first: readers differ on
    /// which of repeated entries they take (Pillow the last, Exiv2 and this reader the
    /// first), and a block reset at its first alone made Pillow's `exif_transpose` turn the
    /// pixels a second time.
    static func resetOrientation(inTIFF bytes: inout [UInt8], anyIntegerType: Bool = false) {
        let entries = ifd0Entries(tag: 0x0112, inTIFF: bytes)
        for entry in entries {
            guard let value = orientationValue(at: entry, inTIFF: bytes, anyIntegerType: anyIntegerType) else { continue }
            // 1 in the field's own width and byte order.
            let one: [UInt8] = value.littleEndian ? [1] + Array(repeating: 0, count: value.width - 1)
                : Array(repeating: 0, count: value.width - 1) + [1]
            guard value.offset + value.width <= bytes.count else { continue }
            bytes.replaceSubrange(value.offset..<value.offset + value.width, with: one)
        }
    }

    /// Where the first orientation entry's value lies and its width (see
    /// ``orientationValue(at:inTIFF:anyIntegerType:)``).
    private static func orientationValue(
        inTIFF bytes: [UInt8],
        anyIntegerType: Bool = false
    ) -> (offset: Int, width: Int, littleEndian: Bool)? {
        guard let entry = orientationEntry(inTIFF: bytes) else { return nil }
        return orientationValue(at: entry.offset, inTIFF: bytes, anyIntegerType: anyIntegerType)
    }

    /// Where the value of the orientation entry at `offset` lies and its width, when the
    /// entry is one SHORT (or one LONG). A function of its own so that the reader's
    /// reference to the bytes is gone before the caller writes them (no copy-on-write of
    /// the whole block).
    private static func orientationValue(
        at offset: Int,
        inTIFF bytes: [UInt8],
        anyIntegerType: Bool
    ) -> (offset: Int, width: Int, littleEndian: Bool)? {
        guard let little = byteOrder(ofTIFF: bytes), offset + 10 <= bytes.count else { return nil }
        let entry = (offset: offset, reader: IntegerReader(bytes: bytes, littleEndian: little))
        guard entry.reader.u32(entry.offset + 4) == 1 else { return nil }
        switch entry.reader.u16(entry.offset + 2) {
        case 3: return (entry.offset + 8, 2, little)
        // A LONG is not the standard's type. A little-endian one reads as the orientation
        // it holds (its low 16 bits come first), so a JPEG decoder turned the pixels by it;
        // a big-endian one reads as 0, no orientation, and nothing was applied to undo.
        case 4 where little || anyIntegerType: return (entry.offset + 8, 4, little)
        // BYTE, SBYTE; SSHORT; SLONG: what libtiff also reads the tag from.
        case 1 where anyIntegerType, 6 where anyIntegerType: return (entry.offset + 8, 1, little)
        case 8 where anyIntegerType: return (entry.offset + 8, 2, little)
        case 9 where anyIntegerType: return (entry.offset + 8, 4, little)
        default: return nil
        }
    }

    /// Bounds-checked integers of one byte order, at offsets from the start of `bytes` (a
    /// block copied out, or a whole file read in place).
    struct IntegerReader<Bytes: RandomAccessCollection<UInt8>> where Bytes.Index == Int {
        let bytes: Bytes
        let littleEndian: Bool

        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            let first = Int(bytes[bytes.startIndex + at]), second = Int(bytes[bytes.startIndex + at + 1])
            return littleEndian ? first | second << 8 : first << 8 | second
        }

        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return littleEndian ? a | b << 16 : a << 16 | b
        }
    }

    /// Where IFD0's orientation entry (12 bytes: tag, type, count, value) starts.
    private static func orientationEntry(inTIFF bytes: [UInt8]) -> (offset: Int, reader: IntegerReader<[UInt8]>)? {
        guard let found = ifd0Entry(tag: 0x0112, inTIFF: bytes),
              // Up to the end of the SHORT value; the padding after it may be cut off.
              found.offset + 10 <= bytes.count
        else { return nil }
        return found
    }

    /// Where IFD0's entry for `tag` (12 bytes: tag, type, count, value or offset) starts,
    /// with a reader of the block's byte order; `nil` when the block is not TIFF or has no
    /// such entry before its damage.
    static func ifd0Entry(tag wanted: Int, inTIFF bytes: [UInt8]) -> (offset: Int, reader: IntegerReader<[UInt8]>)? {
        guard let little = byteOrder(ofTIFF: bytes) else { return nil }
        let reader = IntegerReader(bytes: bytes, littleEndian: little)
        guard let ifd = reader.u32(4), let count = reader.u16(ifd) else { return nil }
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard let tag = reader.u16(entry) else { return nil }
            if tag == wanted { return (entry, reader) }
        }
        return nil
    }

    /// Where each of IFD0's entries for `tag` starts, repeats included, up to its damage.
    static func ifd0Entries(tag wanted: Int, inTIFF bytes: [UInt8]) -> [Int] {
        guard let little = byteOrder(ofTIFF: bytes) else { return [] }
        let reader = IntegerReader(bytes: bytes, littleEndian: little)
        guard let ifd = reader.u32(4), let count = reader.u16(ifd) else { return [] }
        var entries: [Int] = []
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard let tag = reader.u16(entry) else { break }
            if tag == wanted { entries.append(entry) }
        }
        return entries
    }
}
