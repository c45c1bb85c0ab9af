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
/// - the values copied are bounded by ``ImageMetadata/maximumBlockSize`` in all (entries
///   may all point at the same large value): past it there is no block, as a decoder
///   drops any block that large.
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

    /// One directory entry: its tag and type, its count, and its value's bytes as stored.
    struct Entry {
        var tag: Int
        var type: Int
        var count: Int
        var value: [UInt8]
    }

    /// The EXIF block of the TIFF file `bytes` (classic TIFF, either byte order), or `nil`
    /// when the file is not one or its first directory has no descriptive tag and no
    /// sub-directory.
    package static func make(fromFile file: UnsafeRawBufferPointer) -> [UInt8]? {
        try? gather(fromFile: file)
    }

    /// Thrown when the values copied pass their budget.
    struct TooLarge: Error {}

    private static func gather(fromFile file: UnsafeRawBufferPointer) throws(TooLarge) -> [UInt8]? {
        guard let littleEndian = EXIFOrientationReader.byteOrder(ofTIFF: file) else { return nil }
        let reader = EXIFOrientationReader.IntegerReader(bytes: file, littleEndian: littleEndian)
        guard let ifd0 = reader.u32(4) else { return nil }
        var budget = ImageMetadata.maximumBlockSize
        var main: [Entry] = []
        var exif: [Entry] = [], gps: [Entry] = []
        for entry in try entries(at: ifd0, reader, budget: &budget) {
            switch entry.tag {
            case exifPointer:
                exif = try pointedDirectory(entry, reader, budget: &budget).filter { $0.tag != interoperabilityPointer }
            case gpsPointer:
                gps = try pointedDirectory(entry, reader, budget: &budget)
            case let tag where descriptiveTags.contains(tag):
                main.append(entry)
            default:
                continue
            }
        }
        guard !main.isEmpty || !exif.isEmpty || !gps.isEmpty else { return nil }
        return write(main: main, exif: exif, gps: gps, littleEndian: littleEndian)
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

    /// The entries of the directory at `offset`, in file order, up to the first one that
    /// does not fit in the file; each value copied is taken from `budget`, and the read
    /// fails once that runs out.
    static func entries(
        at offset: Int,
        _ reader: EXIFOrientationReader.IntegerReader<UnsafeRawBufferPointer>,
        budget: inout Int
    ) throws(TooLarge) -> [Entry] {
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
            budget -= length + 12
            guard budget >= 0 else { throw TooLarge() }
            found.append(Entry(tag: tag, type: type, count: valueCount, value: Array(reader.bytes[valueStart..<valueStart + length])))
        }
        return found
    }

    /// The entries of the sub-directory a pointer entry (one LONG or IFD) names; none for
    /// a malformed pointer.
    private static func pointedDirectory(
        _ pointer: Entry,
        _ reader: EXIFOrientationReader.IntegerReader<UnsafeRawBufferPointer>,
        budget: inout Int
    ) throws(TooLarge) -> [Entry] {
        guard pointer.count == 1, pointer.type == 4 || pointer.type == 13 else { return [] }
        let valueReader = EXIFOrientationReader.IntegerReader(bytes: pointer.value, littleEndian: reader.littleEndian)
        guard let offset = valueReader.u32(0), offset >= 8 else { return [] }
        return try entries(at: offset, reader, budget: &budget)
    }

    // MARK: - Writing

    /// IFD0 (with pointers to the sub-directories that have entries), then the EXIF
    /// sub-directory, then the GPS one, each followed by its long values, every value on
    /// an even offset as TIFF asks.
    private static func write(main: [Entry], exif: [Entry], gps: [Entry], littleEndian: Bool) -> [UInt8] {
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
        func pointer(_ tag: Int) -> Entry { Entry(tag: tag, type: 4, count: 1, value: [0, 0, 0, 0]) }
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
