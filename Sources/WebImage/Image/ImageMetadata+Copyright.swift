import Foundation

extension ImageMetadata {
    /// EXIF's Artist (0x013B) and Copyright (0x8298) tags, in the ascending order TIFF
    /// keeps its entries in.
    private static let copyrightTags = [0x013B, 0x8298]

    /// Who made the image and who owns it, and nothing else: EXIF's Artist and Copyright
    /// (IFD0, as the camera or the editor wrote them), copied into a fresh EXIF block of
    /// their own; no XMP. What an image service keeps when it strips metadata but not the
    /// credit (imgproxy's `keep_copyright`, thumbor's `PRESERVE_EXIF_COPYRIGHT_INFO`):
    /// location, camera serial numbers and the rest stay out. Empty when the source has
    /// neither tag, or only damaged ones (each value must lie within the block and be
    /// ASCII, TIFF's type 2).
    ///
    /// ```swift
    /// var options = ImageCoderOptions()
    /// options.keepsCopyright = true          // with the default policies, writes this
    /// let credit = image.metadata.copyrightOnly
    /// ```
    public var copyrightOnly: ImageMetadata {
        guard let exif else { return ImageMetadata() }
        let bytes = [UInt8](exif)
        var values: [(tag: Int, text: [UInt8])] = []
        for tag in Self.copyrightTags {
            guard let (entry, reader) = EXIFOrientationReader.ifd0Entry(tag: tag, inTIFF: bytes),
                  reader.u16(entry + 2) == 2,
                  let count = reader.u32(entry + 4), count > 0
            else { continue }
            // Four bytes or fewer sit in the entry itself; longer values at an offset.
            guard let start = count <= 4 ? entry + 8 : reader.u32(entry + 8),
                  start <= bytes.count, count <= bytes.count - start
            else { continue }
            values.append((tag, Array(bytes[start..<start + count])))
        }
        guard !values.isEmpty else { return ImageMetadata() }
        return ImageMetadata(exif: Data(Self.tiffBlock(asciiEntries: values)))
    }

    /// A little-endian TIFF block whose IFD0 holds `entries` (ASCII values, in tag order)
    /// and links to no further IFD; each value longer than four bytes follows the IFD,
    /// padded to an even length as TIFF asks.
    private static func tiffBlock(asciiEntries entries: [(tag: Int, text: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
        func u16(_ value: Int) { out += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: Int) { u16(value & 0xFFFF); u16(value >> 16 & 0xFFFF) }
        u16(entries.count)
        var valueOffset = 8 + 2 + entries.count * 12 + 4
        for (tag, text) in entries {
            u16(tag)
            u16(2)
            u32(text.count)
            if text.count <= 4 {
                out += text + [UInt8](repeating: 0, count: 4 - text.count)
            } else {
                u32(valueOffset)
                valueOffset += text.count + text.count % 2
            }
        }
        u32(0)
        for (_, text) in entries where text.count > 4 {
            out += text
            if text.count % 2 == 1 { out.append(0) }
        }
        return out
    }
}
