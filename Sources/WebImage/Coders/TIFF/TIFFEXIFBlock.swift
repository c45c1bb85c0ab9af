/// A TIFF file's EXIF, gathered into the one TIFF-structured block every other format
/// carries, so that a TIFF source's camera, date, exposure, GPS and credit survive a
/// re-encode with ``ImageCoderOptions/MetadataPolicy/all`` as a JPEG's do.
///
/// In JPEG, PNG, WebP and HEIF the EXIF is a block of its own. In a TIFF it is the file
/// itself: IFD0's descriptive tags (Make, Model, Orientation, DateTime, Artist, Copyright,
/// ...) sit beside the tags that lay out the pixels (strip offsets, compression, sample
/// formats), and its EXIF and GPS sub-directories hang off IFD0 by offset, their values
/// anywhere in the file. Pillow's `getexif()` reads a TIFF the same way. The block built
/// here holds IFD0's descriptive tags and the two sub-directories, entries copied with
/// their values byte for byte in the file's own byte order, offsets recomputed:
/// - pixel-layout tags stay out: in a JPEG's EXIF they would describe pixels that are not
///   there;
/// - the interoperability sub-directory (0xA005) inside the EXIF one is left out rather
///   than followed (it holds only a compatibility index), as are the file's later pages;
/// - an entry whose type is unknown or whose value lies outside the file is skipped, and
///   a damaged directory ends where its damage starts, so hostile bytes give a shorter
///   block, never a crash or a read past the end;
/// - only the values kept are copied, bounded by ``ImageMetadata/maximumBlockSize`` in all
///   (entries may all point at the same large value): past it there is no block, as a
///   decoder drops any block that large.
///
/// ```swift
/// let exif = TIFFEXIFBlock.make(fromFile: tiffBytes)   // nil: nothing descriptive
/// ```
package enum TIFFEXIFBlock {
    /// IFD0 tags that describe the picture, kept: ImageDescription, Make, Model,
    /// Orientation, X/YResolution, ResolutionUnit, Software, DateTime, Artist, HostComputer,
    /// WhitePoint, PrimaryChromaticities, Copyright.
    static let descriptiveTags: Set<Int> = [
        0x010E, 0x010F, 0x0110, 0x0112, 0x011A, 0x011B, 0x0128, 0x0131, 0x0132, 0x013B, 0x013C,
        0x013E, 0x013F, 0x8298,
    ]
    /// The pointers to the EXIF and GPS sub-directories, followed.
    static let exifPointer = 0x8769, gpsPointer = 0x8825
    /// The interoperability pointer inside the EXIF sub-directory, dropped.
    static let interoperabilityPointer = 0xA005

    /// One directory entry: its tag and type, its count, and where its value lies in the
    /// bytes it was read from (inside the entry itself for four bytes or fewer).
    struct Entry {
        var tag: Int
        var type: Int
        var count: Int
        var value: Range<Int>
    }

    /// An entry with its value's bytes copied out, as ``write(main:exif:gps:littleEndian:)``
    /// writes it.
    struct Field {
        var tag: Int
        var type: Int
        var count: Int
        var value: [UInt8]

        init(_ entry: Entry, from bytes: UnsafeRawBufferPointer) {
            (tag, type, count, value) = (entry.tag, entry.type, entry.count, Array(bytes[entry.value]))
        }

        init(tag: Int, type: Int, count: Int, value: [UInt8]) {
            (self.tag, self.type, self.count, self.value) = (tag, type, count, value)
        }
    }

    /// The EXIF block of the TIFF file `bytes` (classic TIFF, either byte order), or `nil`
    /// when the file is not one, its first directory has no descriptive tag and no
    /// sub-directory, or the values kept would pass ``ImageMetadata/maximumBlockSize``.
    package static func make(fromFile file: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let littleEndian = EXIFOrientationReader.byteOrder(ofTIFF: file) else { return nil }
        let reader = EXIFOrientationReader.IntegerReader(bytes: file, littleEndian: littleEndian)
        guard let ifd0 = reader.u32(4) else { return nil }
        var main: [Entry] = []
        var exif: [Entry] = [], gps: [Entry] = []
        for entry in entries(at: ifd0, reader) {
            switch entry.tag {
            case exifPointer:
                exif = pointedDirectory(entry, reader).filter { $0.tag != interoperabilityPointer }
            case gpsPointer:
                gps = pointedDirectory(entry, reader)
            case let tag where descriptiveTags.contains(tag):
                main.append(entry)
            default:
                continue
            }
        }
        guard !main.isEmpty || !exif.isEmpty || !gps.isEmpty else { return nil }
        // Only the values kept are copied (a strip table, an ICC profile or an XMP packet in
        // IFD0 is never touched), and they are bounded in all: entries may all point at the
        // same large value.
        var budget = ImageMetadata.maximumBlockSize
        var kept: [[Field]] = []
        for directory in [main, exif, gps] {
            var fields: [Field] = []
            for entry in directory {
                budget -= entry.value.count + 12
                guard budget >= 0 else { return nil }
                fields.append(Field(entry, from: file))
            }
            kept.append(fields)
        }
        return write(main: kept[0], exif: kept[1], gps: kept[2], littleEndian: littleEndian)
    }

    // MARK: - Reading

    /// Bytes per value of each TIFF type (1 BYTE ... 12 DOUBLE, 13 IFD); `nil` for others.
    static func size(ofType type: Int) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    /// The entries of the directory at `offset`, in order, up to the first one that does
    /// not fit in the bytes; an entry of unknown type or whose value lies outside them is
    /// skipped. Nothing is copied.
    static func entries(at offset: Int, _ reader: EXIFOrientationReader.IntegerReader<UnsafeRawBufferPointer>) -> [Entry] {
        guard let count = reader.u16(offset) else { return [] }
        var found: [Entry] = []
        for index in 0..<count {
            let start = offset + 2 + index * 12
            guard let tag = reader.u16(start), let type = reader.u16(start + 2),
                  let valueCount = reader.u32(start + 4), start + 12 <= reader.bytes.count
            else { break }
            guard let unit = size(ofType: type) else { continue }
            let length = valueCount * unit
            let valueStart: Int
            if length <= 4 {
                valueStart = start + 8
            } else {
                guard let pointed = reader.u32(start + 8), pointed <= reader.bytes.count,
                      length <= reader.bytes.count - pointed else { continue }
                valueStart = pointed
            }
            found.append(Entry(tag: tag, type: type, count: valueCount, value: valueStart..<valueStart + length))
        }
        return found
    }

    /// The entries of the sub-directory a pointer entry (one LONG or IFD) names; none for
    /// a malformed pointer.
    private static func pointedDirectory(_ pointer: Entry, _ reader: EXIFOrientationReader.IntegerReader<UnsafeRawBufferPointer>) -> [Entry] {
        guard pointer.count == 1, pointer.type == 4 || pointer.type == 13,
              let offset = reader.u32(pointer.value.lowerBound), offset >= 8
        else { return [] }
        return entries(at: offset, reader)
    }

    // MARK: - Writing

    /// IFD0 (with pointers to the sub-directories that have entries), then the EXIF
    /// sub-directory, then the GPS one, each followed by its long values, every value on
    /// an even offset as TIFF asks.
    static func write(main: [Field], exif: [Field], gps: [Field], littleEndian: Bool) -> [UInt8] {
        var out: [UInt8] = littleEndian ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]
        func u16(_ value: Int) {
            let bytes = [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
            out += littleEndian ? bytes : bytes.reversed()
        }
        func u32(_ value: Int) {
            let (low, high) = (value & 0xFFFF, value >> 16 & 0xFFFF)
            u16(littleEndian ? low : high)
            u16(littleEndian ? high : low)
        }
        func pointer(_ tag: Int) -> Field { Field(tag: tag, type: 4, count: 1, value: [0, 0, 0, 0]) }
        let directories = [
            main + (exif.isEmpty ? [] : [pointer(exifPointer)]) + (gps.isEmpty ? [] : [pointer(gpsPointer)]),
            exif,
            gps,
        ].map { $0.sorted { $0.tag < $1.tag } }
        // Where each directory starts: after the previous one's entries and long values.
        var starts: [Int] = []
        var position = 8
        for directory in directories {
            starts.append(position)
            guard !directory.isEmpty else { continue }
            position += 2 + directory.count * 12 + 4
            for entry in directory where entry.value.count > 4 { position += entry.value.count + entry.value.count % 2 }
        }
        u32(8)
        for (index, directory) in directories.enumerated() where !directory.isEmpty {
            var valueOffset = starts[index] + 2 + directory.count * 12 + 4
            u16(directory.count)
            for entry in directory {
                u16(entry.tag)
                u16(entry.type)
                u32(entry.count)
                switch entry.tag {
                case exifPointer where index == 0: u32(starts[1])
                case gpsPointer where index == 0: u32(starts[2])
                case _ where entry.value.count <= 4:
                    out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
                default:
                    u32(valueOffset)
                    valueOffset += entry.value.count + entry.value.count % 2
                }
            }
            u32(0)
            for entry in directory where entry.value.count > 4 {
                out += entry.value
                if entry.value.count % 2 == 1 { out.append(0) }
            }
        }
        return out
    }
}
