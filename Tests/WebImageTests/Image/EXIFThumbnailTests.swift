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
    func theThumbnailAndItsDirectoryAreGoneAndIFD0Stays(prefixed: Bool) {
        let original = Self.block(prefixed: prefixed)
        #expect(original.firstRange(of: Data(Self.secret)) != nil)
        let kept = EXIFThumbnail.removed(from: original)
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
        #expect(EXIFThumbnail.removed(from: Data(hugeThumbnail)).firstRange(of: Data(Self.secret)) == nil)
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
