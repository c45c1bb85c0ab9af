import Foundation
import Testing
@testable import WebImage

/// The EXIF thumbnail (IFD1) is taken out of every block an encoder writes again: it shows
/// the source as it was, which for a blurred or cropped result is what was meant to go.
@Suite struct EXIFThumbnailTests {
    static let secret = Array("SECRET-THUMBNAIL".utf8)

    /// A little-endian block: IFD0 with Orientation 1, then IFD1 naming a 16-byte
    /// "thumbnail" by JPEGInterchangeFormat (0x0201) and its length (0x0202).
    static func block(prefixed: Bool = false) -> Data {
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0]
        func u16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) { u16(v & 0xFFFF); u16(v >> 16) }
        // IFD0 at 8: one entry, then the link to IFD1 at 26.
        u16(1); u16(0x0112); u16(3); u32(1); u16(1); u16(0); u32(26)
        // IFD1 at 26: two entries, no further IFD; the thumbnail at 56.
        u16(2); u16(0x0201); u16(4); u32(1); u32(56); u16(0x0202); u16(4); u32(1); u32(secret.count); u32(0)
        out += secret
        return Data((prefixed ? ImageMetadata.jpegEXIFPrefix : []) + out)
    }

    @Test(arguments: [false, true])
    func theThumbnailAndItsDirectoryAreGoneAndIFD0Stays(prefixed: Bool) throws {
        let original = Self.block(prefixed: prefixed)
        #expect(original.firstRange(of: Data(Self.secret)) != nil)
        let kept = try #require(EXIFThumbnail.removed(from: original))
        #expect(kept.count == original.count)
        #expect(kept.firstRange(of: Data(Self.secret)) == nil)
        #expect(EXIFOrientationReader.orientation(inTIFF: kept) == .up)
        let tiff = [UInt8](kept.dropFirst(prefixed ? ImageMetadata.jpegEXIFPrefix.count : 0))
        #expect(tiff[22..<26] == [0, 0, 0, 0], "IFD0's link to IFD1 is cleared")
        // A block without IFD1 is left as it is.
        #expect(EXIFThumbnail.removed(from: kept) == kept)
    }

    @Test func damagedBlocksAreLeftAloneOrCutNeverTrap() {
        let block = Self.block()
        for length in 0...block.count {
            _ = EXIFThumbnail.removed(from: block.prefix(length))
        }
        var pointingAway = [UInt8](block)
        pointingAway[22] = 0xFF; pointingAway[23] = 0xFF; pointingAway[24] = 0xFF; pointingAway[25] = 0x7F
        #expect(EXIFThumbnail.removed(from: Data(pointingAway)) == Data(pointingAway))
        var hugeThumbnail = [UInt8](block)
        hugeThumbnail[48] = 0xFF; hugeThumbnail[49] = 0xFF; hugeThumbnail[50] = 0xFF; hugeThumbnail[51] = 0x7F
        #expect(EXIFThumbnail.removed(from: Data(hugeThumbnail))?.firstRange(of: Data(Self.secret)) == nil)
    }

    /// A TIFF-structured block of either byte order: IFD0 at 8 with `ifd0` entries, its
    /// link to `ifd1Offset` (IFD1 at the end of IFD0 when `nil`), IFD1 with `ifd1` entries,
    /// then `tail`. An entry is (tag, type, count, value or offset); offsets into the tail
    /// start at `tailStart`, which the closure is given.
    static func tiff(
        littleEndian: Bool, ifd0: [(Int, Int, Int, Int)], ifd1Offset: Int? = nil,
        ifd1: (Int) -> [(Int, Int, Int, Int)], tail: [UInt8]
    ) -> [UInt8] {
        var out: [UInt8] = littleEndian ? [0x49, 0x49, 0x2A, 0] : [0x4D, 0x4D, 0, 0x2A]
        func u16(_ v: Int) { out += littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] : [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) { if littleEndian { u16(v & 0xFFFF); u16(v >> 16) } else { u16(v >> 16); u16(v & 0xFFFF) } }
        func entry(_ e: (Int, Int, Int, Int)) {
            u16(e.0); u16(e.1); u32(e.2)
            // A SHORT value sits in the first two bytes of the field.
            if e.1 == 3, e.2 == 1 { u16(e.3); u16(0) } else { u32(e.3) }
        }
        u32(8)
        let ifd1At = 8 + 2 + ifd0.count * 12 + 4
        let entries1 = ifd1(0)
        let tailStart = ifd1At + 2 + entries1.count * 12 + 4
        u16(ifd0.count); ifd0.forEach(entry); u32(ifd1Offset ?? ifd1At)
        u16(entries1.count); ifd1(tailStart).forEach(entry); u32(0)
        return out + tail
    }

    static let artist = Array("ARTIST-IN-IFD0".utf8)

    /// EXIF 2.32 allows an uncompressed thumbnail: strips by StripOffsets (0x0111) and
    /// StripByteCounts (0x0117). Only the JPEG one was zeroed; these bytes stayed.
    @Test(arguments: [true, false])
    func anUncompressedThumbnailsStripsAreZeroed(littleEndian: Bool) throws {
        // Two strips, their offsets and counts stored out of line (two LONGs each).
        let half = Self.secret.count / 2
        let block = Self.tiff(littleEndian: littleEndian, ifd0: [(0x0112, 3, 1, 1)], ifd1: { tail in
            [(0x0103, 3, 1, 1), (0x0111, 4, 2, tail), (0x0117, 4, 2, tail + 8)]
        }, tail: [])
        let tailStart = block.count
        func long(_ v: Int) -> [UInt8] {
            littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), 0, 0] : [0, 0, UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        let strips = long(tailStart + 16) + long(tailStart + 16 + half) + long(half) + long(Self.secret.count - half)
        let data = Data(block + strips + Self.secret)
        let kept = try #require(EXIFThumbnail.removed(from: data))
        #expect(kept.firstRange(of: Data(Self.secret.prefix(half))) == nil)
        #expect(kept.firstRange(of: Data(Self.secret.suffix(Self.secret.count - half))) == nil)
        #expect(EXIFOrientationReader.orientation(inTIFF: kept) == .up, "IFD0 stays")
    }

    /// JPEGInterchangeFormat and its length as SHORTs in a big-endian block: read as LONGs,
    /// the offset landed past the end and the thumbnail stayed.
    @Test func aThumbnailNamedBySHORTsInABigEndianBlockIsZeroed() throws {
        let block = Self.tiff(littleEndian: false, ifd0: [(0x0112, 3, 1, 1)], ifd1: { tail in
            [(0x0201, 3, 1, tail), (0x0202, 3, 1, Self.secret.count)]
        }, tail: Self.secret)
        let kept = try #require(EXIFThumbnail.removed(from: Data(block)))
        #expect(kept.firstRange(of: Data(Self.secret)) == nil)
    }

    /// A damaged link that names IFD0 itself as IFD1, or a thumbnail at offset 0: the
    /// header and IFD0 (Artist here) must survive.
    @Test func theHeaderAndIFD0AreNeverZeroed() throws {
        // IFD0: Orientation and Artist (ASCII, out of line in the tail).
        func ifd0(_ tailStart: Int) -> [(Int, Int, Int, Int)] { [(0x0112, 3, 1, 1), (0x013B, 2, Self.artist.count, tailStart)] }
        let probe = Self.tiff(littleEndian: true, ifd0: ifd0(0), ifd1: { _ in [] }, tail: [])
        let selfLinked = Self.tiff(littleEndian: true, ifd0: ifd0(probe.count), ifd1Offset: 8, ifd1: { _ in [] }, tail: Self.artist)
        #expect(EXIFThumbnail.removed(from: Data(selfLinked)) == Data(selfLinked))
        let atZero = Self.tiff(littleEndian: true, ifd0: ifd0(probe.count + 24), ifd1: { _ in
            [(0x0201, 4, 1, 0), (0x0202, 4, 1, 10_000)]
        }, tail: [])
        let withArtist = atZero + Self.artist
        let kept = try #require(EXIFThumbnail.removed(from: Data(withArtist)))
        #expect(kept.prefix(8) == Data(withArtist.prefix(8)), "the header stays")
        // IFD0 at 8: its count and two entries, Artist's pointer among them, byte for byte.
        #expect(Array(kept[8..<34]) == Array(withArtist[8..<34]), "IFD0's entries stay")
        #expect(EXIFOrientationReader.orientation(inTIFF: kept) == .up, "IFD0 stays")
    }

    /// More strips than any thumbnail has cannot all be found cheaply: the block is dropped
    /// rather than written with part of a thumbnail in it.
    @Test func aThumbnailOfTooManyStripsDropsTheBlock() {
        let count = EXIFThumbnail.maximumStrips + 1
        let block = Self.tiff(littleEndian: true, ifd0: [(0x0112, 3, 1, 1)], ifd1: { tail in
            [(0x0111, 4, count, tail), (0x0117, 4, count, tail)]
        }, tail: Array(repeating: 0, count: count * 4))
        #expect(EXIFThumbnail.removed(from: Data(block)) == nil)
    }

    /// A review's finding: every repeat of a thumbnail tag was read, each up to 4,096
    /// values, and IFD1 may hold 65,535 entries: an 800 KB block took most of a minute.
    /// The values of all the repeats together are bounded now: past the bound the block
    /// is dropped, at once.
    @Test func repeatedStripEntriesPastTheBoundDropTheBlockPromptly() throws {
        let repeats = 20_000
        let block = Self.tiff(littleEndian: true, ifd0: [(0x0112, 3, 1, 1)], ifd1: { tail in
            Array(repeating: (0x0111, 4, EXIFThumbnail.maximumStrips, tail), count: repeats) + [(0x0117, 4, 1, 0)]
        }, tail: Array(repeating: 0, count: EXIFThumbnail.maximumStrips * 4))
        let started = ContinuousClock.now
        #expect(EXIFThumbnail.removed(from: Data(block)) == nil)
        #expect(ContinuousClock.now - started < TestTime.prompt)
    }

    /// Two JPEG thumbnails by repeated tags: readers differ on which they keep (libexif the
    /// last, Exiv2 the first), so both are zeroed.
    @Test func everyRepeatOfAThumbnailTagIsZeroed() throws {
        let first = Array("FIRST-THUMBNAIL".utf8), second = Array("SECOND-THUMBNAIL".utf8)
        let block = Self.tiff(littleEndian: true, ifd0: [(0x0112, 3, 1, 1)], ifd1: { tail in
            [(0x0201, 4, 1, tail), (0x0202, 4, 1, first.count), (0x0201, 4, 1, tail + first.count), (0x0202, 4, 1, second.count)]
        }, tail: first + second)
        let kept = try #require(EXIFThumbnail.removed(from: Data(block)))
        #expect(kept.firstRange(of: Data(first)) == nil)
        #expect(kept.firstRange(of: Data(second)) == nil)
    }

    /// A JPEG offset without a length that names no JPEG (a bogus 0, here past the
    /// directory) zeroes nothing beyond IFD1: zeroed to the block's end, it took the EXIF
    /// sub-directory with it. And a JPEG whose segment holds FF D9 is zeroed to its real
    /// end, not to that.
    @Test func aLengthlessOffsetIsZeroedOnlyOverAWholeJPEG() throws {
        let after = Array("AFTER-THE-THUMBNAIL".utf8)
        let notJPEG = Self.tiff(littleEndian: true, ifd0: [(0x0112, 3, 1, 1)], ifd1: { tail in [(0x0201, 4, 1, tail)] }, tail: after)
        let kept = try #require(EXIFThumbnail.removed(from: Data(notJPEG)))
        #expect(kept.firstRange(of: Data(after)) != nil)

        // SOI, an APP1 whose payload is FF D9 00 00, a scan header, the scan's data, EOI.
        let tricky: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x06, 0xFF, 0xD9, 0x00, 0x00, 0xFF, 0xDA, 0x00, 0x02] + Self.secret + [0xFF, 0xD9]
        let nested = Self.tiff(littleEndian: true, ifd0: [(0x0112, 3, 1, 1)], ifd1: { tail in [(0x0201, 4, 1, tail)] }, tail: tricky + after)
        let zeroed = try #require(EXIFThumbnail.removed(from: Data(nested)))
        #expect(zeroed.firstRange(of: Data(Self.secret)) == nil)
        #expect(zeroed.firstRange(of: Data(after)) != nil)
    }

    /// A JPEG thumbnail whose length tag is missing is zeroed up to its end marker: only
    /// its directory and link were, and its bytes stayed for any scan to find. What follows
    /// the marker stays.
    @Test func aJPEGThumbnailWithoutItsLengthIsZeroedToItsEnd() throws {
        let after = Array("AFTER-THE-THUMBNAIL".utf8)
        // SOI, a scan header, the scan's data, EOI.
        let thumbnail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02] + Self.secret + [0xFF, 0xD9]
        let block = Self.tiff(littleEndian: true, ifd0: [(0x0112, 3, 1, 1)], ifd1: { tail in
            [(0x0201, 4, 1, tail)]
        }, tail: thumbnail + after)
        let kept = try #require(EXIFThumbnail.removed(from: Data(block)))
        #expect(kept.firstRange(of: Data(Self.secret)) == nil)
        #expect(kept.firstRange(of: Data(after)) != nil)
        #expect(EXIFOrientationReader.orientation(inTIFF: kept) == .up, "IFD0 stays")
    }

    /// A review's finding: each JPEG offset without a length scanned to its JPEG's end, so
    /// thousands of offsets naming one JPEG that runs to the end of a megabyte block took
    /// billions of steps (seconds of CPU per encode that keeps the metadata).
    @Test func manyLengthlessOffsetsOfOneLongJPEGAreScannedOnce() throws {
        let count = EXIFThumbnail.maximumStrips
        // `count` distinct JPEG starts, 6 bytes apart, each an SOI and an APP1 segment whose
        // length reaches one shared scan header; the scan's entropy-coded data (zeros) runs
        // to the end of a megabyte. From any of them the end marker search crosses the
        // whole megabyte; all of them lie in the first one's range, which is zeroed.
        let scanAt = 6 * count
        var jpeg: [UInt8] = []
        for index in 0..<count {
            let length = scanAt - 6 * index - 4
            jpeg += [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]
        }
        jpeg += [0xFF, 0xDA, 0x00, 0x02] + Self.secret + [UInt8](repeating: 0, count: 1 << 20)
        let block = Self.tiff(littleEndian: true, ifd0: [(0x0112, 3, 1, 1)], ifd1: { tail in
            [(0x0201, 4, count, tail)]
        }, tail: [])
        let jpegAt = block.count + count * 4
        var bytes = block
        for index in 0..<count {
            let offset = jpegAt + 6 * index
            bytes += [UInt8(offset & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset >> 16 & 0xFF), 0]
        }
        bytes += jpeg
        let started = ContinuousClock.now
        let kept = try #require(EXIFThumbnail.removed(from: Data(bytes)))
        #expect(ContinuousClock.now - started < TestTime.prompt)
        #expect(kept.firstRange(of: Data(Self.secret)) == nil)
    }

    /// Each search for the next `xmp:Thumbnails` starts after the last cut: starting over
    /// at every element, a packet of half a megabyte of padding and thousands of elements
    /// took minutes.
    @Test func manyXMPThumbnailsAfterLongPaddingAreCutPromptly() {
        let element = "<xmp:Thumbnails></xmp:Thumbnails>"
        let packet = Data((String(repeating: " ", count: 512 * 1024) + String(repeating: element, count: 15_800) + "end").utf8)
        let started = ContinuousClock.now
        let kept = XMPThumbnail.removed(from: packet)
        #expect(ContinuousClock.now - started < TestTime.prompt)
        #expect(kept == Data((String(repeating: " ", count: 512 * 1024) + "end").utf8))
    }

    /// Through an encoder that keeps the metadata: the written file holds IFD0, not the
    /// thumbnail.
    @Test(arguments: [ImageFormat.jpeg, .png, .webp])
    func anEncoderKeepingTheMetadataWritesNoThumbnail(format: ImageFormat) throws {
        let image = Image(frames: [ImageFrame(pixels: PixelBuffer(width: 8, height: 8, filling: .white))], hasAlpha: false,
                          metadata: ImageMetadata(exif: Self.block()))
        var options = ImageCoderOptions()
        options.metadataPolicy = .all
        let data = try CodersManager.shared.encode(image, as: format, options: options)
        #expect(data.firstRange(of: Data(Self.secret)) == nil)
        var reading = ImageCoderOptions()
        reading.readsMetadata = true
        #expect(try CodersManager.shared.decode(data, options: reading).metadata.exif != nil)
    }

    /// XMP carries thumbnails too (`xmp:Thumbnails`, a base64 JPEG Photoshop writes): an
    /// encoder that keeps the metadata writes the packet without them, and the rest of it.
    @Test(arguments: [ImageFormat.jpeg, .png, .webp])
    func anEncoderKeepingTheMetadataWritesNoXMPThumbnail(format: ImageFormat) throws {
        let packet = Data("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" dc:rights="Me">\
        <xmp:Thumbnails><rdf:Alt><rdf:li><xmpGImg:image>U0VDUkVUVEhVTUI=</xmpGImg:image></rdf:li></rdf:Alt></xmp:Thumbnails>\
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """.utf8)
        let image = Image(frames: [ImageFrame(pixels: PixelBuffer(width: 8, height: 8, filling: .white))], hasAlpha: false,
                          metadata: ImageMetadata(xmp: packet))
        var options = ImageCoderOptions()
        options.metadataPolicy = .all
        let data = try CodersManager.shared.encode(image, as: format, options: options)
        #expect(data.firstRange(of: Data("U0VDUkVUVEhVTUI=".utf8)) == nil, "the thumbnail was written")
        #expect(data.firstRange(of: Data("dc:rights=\"Me\"".utf8)) != nil, "the rest of the packet was not")
    }

    @Test func anXMPPacketWithoutAClosedThumbnailIsLeftAsItIs() {
        let packet = Data("<xmp:Thumbnails><rdf:Alt>".utf8)
        #expect(XMPThumbnail.removed(from: packet) == packet)
        let two = Data("a<xap:Thumbnails>1</xap:Thumbnails>b<xmp:Thumbnails>2</xmp:Thumbnails>c".utf8)
        #expect(XMPThumbnail.removed(from: two) == Data("abc".utf8))
    }
}
