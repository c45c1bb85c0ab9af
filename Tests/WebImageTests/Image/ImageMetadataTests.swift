import Foundation
import Testing
@testable import WebImage

/// Decoders reading EXIF and XMP (``ImageCoderOptions/readsMetadata``) from files another
/// tool (exiftool, see Fixtures/metadata/make-metadata-fixtures.sh) wrote, the orientation
/// reset in both byte orders, and the size bound.
@Suite struct ImageMetadataTests {
    static func fixture(_ ext: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("metadata/exif-xmp-icc.\(ext)"))
    }

    static func decode(_ data: Data, readsMetadata: Bool = true, applyOrientation: Bool = true) throws -> Image {
        var options = ImageCoderOptions()
        options.readsMetadata = readsMetadata
        options.applyOrientation = applyOrientation
        return try CodersManager.shared.decode(data, options: options)
    }

    @Test(arguments: ["jpg", "png", "avif", "heic"])
    func decodersReadEXIFAndXMPWhenAsked(ext: String) throws {
        let image = try Self.decode(Self.fixture(ext))
        let exif = try #require(image.metadata.exif, "\(ext): no EXIF")
        let xmp = try #require(image.metadata.xmp, "\(ext): no XMP")
        #expect(EXIFOrientationReader.byteOrder(ofTIFF: [UInt8](exif)) == (ext == "png"))
        #expect(String(decoding: xmp, as: UTF8.self).contains("Metadata Fixture"))
        // exiftool wrote Orientation 6; the decode turned the pixels (or, for AVIF and
        // HEIF, whose `irot` rules, took them as they are), so the kept EXIF says 1.
        #expect(EXIFOrientationReader.orientation(inTIFF: exif) == .up)
        #expect(try Self.decode(Self.fixture(ext), readsMetadata: false).metadata.isEmpty)
    }

    /// TIFF's EXIF is its own directory of tags, gathered into a block (TIFFEXIFBlockTests
    /// has the details), in the file's byte order, with the orientation reset.
    @Test func tiffKeepsItsXMPAndItsEXIFDirectoryAsABlock() throws {
        let image = try Self.decode(Self.fixture("tiff"))
        let exif = try #require(image.metadata.exif)
        #expect(EXIFOrientationReader.byteOrder(ofTIFF: [UInt8](exif)) == true)
        #expect(EXIFOrientationReader.orientation(inTIFF: exif) == .up)
        #expect(!image.metadata.copyrightOnly.isEmpty)
        let xmp = try #require(image.metadata.xmp)
        #expect(String(decoding: xmp, as: UTF8.self).contains("Metadata Fixture"))
    }

    @Test(arguments: [ImageFormat.png, .webp])
    func animationsCarryTheirMetadata(format: ImageFormat) throws {
        let frames = [RGBAColor.white, .black].map {
            ImageFrame(pixels: PixelBuffer(width: 4, height: 4, filling: $0), duration: 0.1)
        }
        let xmp = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
            + #"<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="3"/></rdf:RDF></x:xmpmeta>"#
        let metadata = ImageMetadata(
            exif: Data(Self.tiffBlock(littleEndian: false, entries: [(0x0112, 3, 1, 1)])), xmp: Data(xmp.utf8))
        var options = ImageCoderOptions()
        options.metadataPolicy = .all
        let encoded = try CodersManager.shared.encode(Image(frames: frames, metadata: metadata), as: format, options: options)
        let decoded = try Self.decode(encoded)
        #expect(decoded.frameCount == 2)
        #expect(decoded.metadata == metadata)
        let tags = try ExifTool.tags(of: encoded, ext: format.rawValue)
        #expect(tags["EXIF:Orientation"] as? Int == 1, "\(format): \(tags.keys.sorted())")
        #expect(tags["XMP:Rating"] as? Int == 3, "\(format): \(tags.keys.sorted())")
    }

    @Test func theOrientationIsKeptWhenNotApplied() throws {
        let image = try Self.decode(Self.fixture("png"), applyOrientation: false)
        #expect(EXIFOrientationReader.orientation(inTIFF: try #require(image.metadata.exif)) == .right)
    }

    /// A minimal TIFF block: IFD0 with `entries` (tag, type, count, value as SHORT).
    static func tiffBlock(littleEndian: Bool, entries: [(tag: UInt16, type: UInt16, count: UInt32, value: UInt16)]) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let bytes = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return littleEndian ? bytes.reversed() : bytes
        }
        var block: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        block += u16(42) + u32(8) + u16(UInt16(entries.count))
        for entry in entries {
            block += u16(entry.tag) + u16(entry.type) + u32(entry.count) + u16(entry.value) + [0, 0]
        }
        return block + u32(0)
    }

    @Test(arguments: [true, false])
    func resettingTheOrientationRewritesOnlyItsValue(littleEndian: Bool) {
        let original = Self.tiffBlock(littleEndian: littleEndian, entries: [(0x010F, 2, 1, 0x4142), (0x0112, 3, 1, 8)])
        var block = original
        #expect(EXIFOrientationReader.orientation(inTIFF: block) == .left)
        EXIFOrientationReader.resetOrientation(inTIFF: &block)
        #expect(EXIFOrientationReader.orientation(inTIFF: block) == .up)
        // Only the two value bytes of the orientation entry changed.
        let changed = zip(original, block).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(changed == [10 + 12 + 8 + (littleEndian ? 0 : 1)])
    }

    /// A review's finding: a little-endian LONG orientation reads as the value it holds, so
    /// the decoder turned the pixels by it, but only a SHORT was reset, and software that
    /// reads the LONG turned the image again.
    @Test func aLittleEndianLongOrientationIsResetToo() {
        var block = Self.tiffBlock(littleEndian: true, entries: [(0x0112, 4, 1, 6)])
        #expect(EXIFOrientationReader.orientation(inTIFF: block) == .right)
        EXIFOrientationReader.resetOrientation(inTIFF: &block)
        #expect(EXIFOrientationReader.orientation(inTIFF: block) == .up)
        #expect(Array(block[18..<22]) == [1, 0, 0, 0], "the whole LONG says 1")
        // Types the reset cannot rewrite are not read either: applied, they would stay.
        for (type, count) in [(UInt16(1), UInt32(1)), (8, 1), (3, 2)] {
            #expect(EXIFOrientationReader.orientation(inTIFF: Self.tiffBlock(littleEndian: true, entries: [(0x0112, type, count, 6)])) == nil)
        }
    }

    @Test func blocksWithoutAnOrientationOrWithAnOddOneAreLeftAlone() {
        for entries in [[(tag: UInt16(0x010F), type: UInt16(2), count: UInt32(1), value: UInt16(1))],
                        [(tag: 0x0112, type: 4, count: 1, value: 6)]] {
            var block = Self.tiffBlock(littleEndian: false, entries: entries)
            let original = block
            EXIFOrientationReader.resetOrientation(inTIFF: &block)
            #expect(block == original)
        }
        // A block cut inside the orientation's value (which ends 20 bytes in) is not
        // touched either, and does not trap.
        var truncated = Array(Self.tiffBlock(littleEndian: true, entries: [(0x0112, 3, 1, 6)]).prefix(19))
        let before = truncated
        EXIFOrientationReader.resetOrientation(inTIFF: &truncated)
        #expect(truncated == before)
    }

    @Test func readKeepsOnlyTIFFStructuredEXIFAndBoundsEveryBlock() {
        let tiff = Self.tiffBlock(littleEndian: true, entries: [(0x0112, 3, 1, 6)])
        let prefixed = ImageMetadata.jpegEXIFPrefix + tiff
        let read = prefixed.withUnsafeBytes { ImageMetadata.read(exif: $0, xmp: nil, resetOrientation: false) }
        #expect(read.exif == Data(tiff))
        let notTIFF = Array("not an EXIF block".utf8)
        #expect(notTIFF.withUnsafeBytes { ImageMetadata.read(exif: $0, xmp: $0, resetOrientation: true) }.exif == nil)
        let huge = tiff + [UInt8](repeating: 0, count: ImageMetadata.maximumBlockSize)
        let dropped = huge.withUnsafeBytes { ImageMetadata.read(exif: $0, xmp: $0, resetOrientation: true) }
        #expect(dropped.isEmpty)
    }

    @Test func xmpOrientationIsResetInBothSpellings() {
        let packet = Array(#"<rdf:Description tiff:Orientation="6"/><tiff:Orientation>8</tiff:Orientation>"#.utf8)
        let reset = packet.withUnsafeBytes { ImageMetadata.read(exif: nil, xmp: $0, resetOrientation: true) }
        let text = String(decoding: reset.xmp ?? Data(), as: UTF8.self)
        #expect(text == #"<rdf:Description tiff:Orientation="1"/><tiff:Orientation>1</tiff:Orientation>"#)
        let kept = packet.withUnsafeBytes { ImageMetadata.read(exif: nil, xmp: $0, resetOrientation: false) }
        #expect(kept.xmp == Data(packet))
        #expect(packet.withUnsafeBufferPointer(JPEGCoder.xmpOrientation) == .right)
    }

    @Test func anOversizedBlockInAFileIsDropped() throws {
        // A PNG whose eXIf chunk is just over the bound: decodes, without the block.
        let huge = Self.tiffBlock(littleEndian: true, entries: [(0x0112, 3, 1, 1)])
            + [UInt8](repeating: 0, count: ImageMetadata.maximumBlockSize)
        let image = Image(
            frames: [ImageFrame(pixels: PixelBuffer(width: 2, height: 2, filling: .white))],
            metadata: ImageMetadata(exif: Data(huge), xmp: Data("<x:xmpmeta/>".utf8)))
        var options = ImageCoderOptions()
        options.metadataPolicy = .all
        let png = try CodersManager.shared.encode(image, as: .png, options: options)
        let decoded = try Self.decode(png)
        #expect(decoded.metadata == ImageMetadata(exif: nil, xmp: Data("<x:xmpmeta/>".utf8)))
    }
}
