import Foundation
import Testing
@testable import WebImage

/// A TIFF's EXIF (IFD0's descriptive tags, the EXIF and GPS sub-directories) gathered into
/// a block (``TIFFEXIFBlock``): from files exiftool wrote (Fixtures/metadata), read back by
/// exiftool from what our encoders wrote; a hand-built big-endian file for the structure;
/// damaged files for the bounds.
@Suite struct TIFFEXIFBlockTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("metadata/\(name)"))
    }

    static func decode(_ data: Data, applyOrientation: Bool = true) throws -> Image {
        var options = ImageCoderOptions()
        options.readsMetadata = true
        options.applyOrientation = applyOrientation
        return try TIFFCoder().decode(data, options: options)
    }

    /// The EXIF block's entries in the directory at `offset`, with their values.
    static func entries(_ block: [UInt8], at offset: Int) throws -> [TIFFEXIFBlock.Field] {
        guard let littleEndian = EXIFOrientationReader.byteOrder(ofTIFF: block) else {
            Issue.record("not a TIFF structure")
            return []
        }
        return block.withUnsafeBytes { bytes in
            TIFFEXIFBlock.entries(at: offset, EXIFOrientationReader.IntegerReader(bytes: bytes, littleEndian: littleEndian))
                .map { TIFFEXIFBlock.Field($0, from: bytes) }
        }
    }

    @Test(arguments: ["exif-xmp-icc.tiff", "exif-subifd.tiff"], [ImageFormat.jpeg, .png])
    func aTIFFSourcesEXIFSurvivesAReencode(file: String, format: ImageFormat) throws {
        let image = try Self.decode(Self.fixture(file))
        var options = ImageCoderOptions()
        options.metadataPolicy = .all
        let encoded = try CodersManager.shared.encode(image, as: format, options: options)
        let tags = try ExifTool.tags(of: encoded, ext: format == .jpeg ? "jpg" : "png")
        #expect(tags["EXIF:Artist"] as? String == "Metadata Fixture")
        #expect(tags["EXIF:Copyright"] as? String == "CC0 swift-web-image")
        // The decode turned the pixels upright, so the kept EXIF says so.
        #expect(tags["EXIF:Orientation"] as? Int == 1)
        let latitude = try #require(tags["EXIF:GPSLatitude"] as? Double, "\(file) → \(format) lost the GPS position")
        #expect(abs(latitude - (file == "exif-subifd.tiff" ? 35.6586 : 48.8584)) < 0.0001)
        // The TIFF's pixel layout is not the new file's: none of it is kept.
        for layoutTag in ["StripOffsets", "StripByteCounts", "BitsPerSample", "Compression", "RowsPerStrip", "ImageWidth"] {
            #expect(tags["EXIF:\(layoutTag)"] == nil, "\(file) → \(format) kept \(layoutTag)")
        }
        if file == "exif-subifd.tiff" {
            #expect(tags["EXIF:Make"] as? String == "Fixture Camera")
            #expect(tags["EXIF:Model"] as? String == "FC-1")
            #expect(tags["EXIF:DateTimeOriginal"] as? String == "2024:05:06 07:08:09")
            #expect(tags["EXIF:ExposureTime"] as? Double == 0.008)
            #expect(tags["EXIF:FNumber"] as? Double == 2.8)
            #expect(tags["EXIF:ISO"] as? Int == 200)
            #expect(tags["EXIF:LensModel"] as? String == "Fixture Lens 35mm")
            #expect(tags["EXIF:InteropIndex"] == nil)
        }
    }

    @Test func theKeptOrientationFollowsTheDecode() throws {
        let data = try Self.fixture("exif-subifd.tiff")
        let upright = try #require(try Self.decode(data).metadata.exif)
        #expect(EXIFOrientationReader.orientation(inTIFF: upright) == .up)
        let asStored = try #require(try Self.decode(data, applyOrientation: false).metadata.exif)
        #expect(EXIFOrientationReader.orientation(inTIFF: asStored) == .left)
        var plain = ImageCoderOptions()
        plain.readsMetadata = false
        #expect(try TIFFCoder().decode(data, options: plain).metadata.isEmpty)
    }

    /// A big-endian file: the block keeps the byte order and copies values byte for byte;
    /// pixel-layout tags, the interoperability pointer, a pointer out of the file, a value
    /// out of the file and an unknown type are all left out.
    @Test func theBlockKeepsTheByteOrderAndLeavesOutWhatItCannotUse() throws {
        var file: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]
        func u16(_ value: Int) { file += [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) { u16(value >> 16 & 0xFFFF); u16(value & 0xFFFF) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int, short: Bool = false) {
            u16(tag); u16(type); u32(count)
            if short { u16(value); u16(0) } else { u32(value) }
        }
        // IFD0 at 8: 5 entries, then its Make string at 74, the EXIF directory at 86 and
        // its exposure at 140.
        u16(5)
        entry(0x0100, 3, 1, 96, short: true)            // ImageWidth: layout, left out
        entry(0x010F, 2, 12, 74)                         // Make
        entry(0x0112, 3, 1, 6, short: true)             // Orientation
        entry(0x8769, 4, 1, 86)                          // EXIF sub-directory
        entry(0x8825, 4, 1, 0x7FFF_FF00)                 // GPS, pointing out of the file
        u32(0)
        #expect(file.count == 74)
        file += Array("Test Camera\0".utf8)
        u16(4)
        entry(0x829A, 5, 1, 140)                         // ExposureTime 1/125
        entry(0x9003, 2, 20, 0x7FFF_FF00)                // DateTimeOriginal, out of the file
        entry(0xA005, 4, 1, 8)                           // Interoperability pointer
        entry(0xA433, 77, 1, 0)                          // an unknown type
        u32(0)
        #expect(file.count == 140)
        u32(1); u32(125)

        let block = try #require(file.withUnsafeBytes { TIFFEXIFBlock.make(fromFile: $0) })
        #expect(EXIFOrientationReader.byteOrder(ofTIFF: block) == false)
        #expect(EXIFOrientationReader.orientation(inTIFF: block) == .right)
        let main = try Self.entries(block, at: 8)
        #expect(main.map(\.tag) == [0x010F, 0x0112, 0x8769])
        #expect(main.first?.value == Array("Test Camera\0".utf8))
        let pointer = try #require(main.last?.value)
        let exifOffset = Int(pointer[0]) << 24 | Int(pointer[1]) << 16 | Int(pointer[2]) << 8 | Int(pointer[3])
        let exif = try Self.entries(block, at: exifOffset)
        #expect(exif.map(\.tag) == [0x829A])
        #expect(exif.first?.value == [0, 0, 0, 1, 0, 0, 0, 125])
    }

    @Test func nothingDescriptiveGivesNoBlock() throws {
        let plain = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("tiff/rgb8.tif"))
        #expect(plain.withUnsafeBytes { TIFFEXIFBlock.make(fromFile: $0) } == nil)
        #expect(try Self.decode(plain).metadata.exif == nil)
        #expect([UInt8]("not a tiff".utf8).withUnsafeBytes { TIFFEXIFBlock.make(fromFile: $0) } == nil)
    }

    /// Every prefix of the fixture, and copies with flipped bytes: a block or none, never a
    /// crash or a read past the end (the address sanitizer run checks the latter); any
    /// block made is a TIFF structure the EXIF readers accept, and gathering it again gives
    /// it back unchanged.
    @Test func damagedFilesGiveAShorterBlockOrNone() throws {
        let bytes = [UInt8](try Self.fixture("exif-subifd.tiff").prefix(1024))
        var generator = SystemRandomNumberGenerator()
        var damaged: [[UInt8]] = (0...bytes.count).map { Array(bytes.prefix($0)) }
        for _ in 0..<500 {
            var copy = bytes
            for _ in 0..<4 { copy[Int.random(in: 8..<copy.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            damaged.append(copy)
        }
        for file in damaged {
            guard let block = file.withUnsafeBytes({ TIFFEXIFBlock.make(fromFile: $0) }) else { continue }
            #expect(EXIFOrientationReader.byteOrder(ofTIFF: block) != nil)
            #expect(block.count <= 8 + 3 * 6 + 2 * ImageMetadata.maximumBlockSize)
            // Its own fixed point (what the metadata fuzz target checks too).
            #expect(block.withUnsafeBytes { TIFFEXIFBlock.make(fromFile: $0) } == block)
        }
    }

    /// A large value that is not kept (an ICC profile, a strip table, an XMP packet in
    /// IFD0) is never copied and costs nothing against the bound: a 2 MiB profile beside
    /// Make still gives a block holding Make.
    @Test func largeValuesLeftOutDoNotCountAgainstTheBound() throws {
        let profileSize = 2 << 20
        var file: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
        func u16(_ value: Int) { file += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: Int) { u16(value & 0xFFFF); u16(value >> 16 & 0xFFFF) }
        let valuesStart = 8 + 2 + 2 * 12 + 4
        u16(2)
        u16(0x010F); u16(2); u32(8); u32(valuesStart)                      // Make
        u16(0x8773); u16(7); u32(profileSize); u32(valuesStart + 8)        // ICC profile
        u32(0)
        file += Array("Camera\0\0".utf8) + [UInt8](repeating: 0x41, count: profileSize)
        let block = try #require(file.withUnsafeBytes { TIFFEXIFBlock.make(fromFile: $0) })
        let main = try Self.entries(block, at: 8)
        #expect(main.map(\.tag) == [0x010F])
        #expect(main.first?.value == Array("Camera\0\0".utf8))
        #expect(block.count < 64)
    }

    /// Thousands of entries all pointing at one large value would copy it thousands of
    /// times: the copying stops at the metadata bound, and there is no block.
    @Test func entriesSharingOneLargeValueAreBounded() throws {
        let valueSize = 64 << 10, entryCount = 2_000
        var file: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
        func u16(_ value: Int) { file += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: Int) { u16(value & 0xFFFF); u16(value >> 16 & 0xFFFF) }
        let valueOffset = 8 + 2 + entryCount * 12 + 4
        u16(entryCount)
        for _ in 0..<entryCount { u16(0x010E); u16(7); u32(valueSize); u32(valueOffset) }
        u32(0)
        file += [UInt8](repeating: 0x41, count: valueSize)
        #expect(file.withUnsafeBytes { TIFFEXIFBlock.make(fromFile: $0) } == nil)
    }
}
