import Foundation
import Testing
@testable import WebImage

/// A PNG or WebP whose orientation is given only in XMP (`tiff:Orientation`, no EXIF
/// orientation) is turned upright by it, as Pillow's `exif_transpose` and our JPEG decode
/// do; EXIF's orientation, when there is one, still rules. The files are written by our
/// encoders and read back by exiftool first, so the test knows what they hold. AVIF and
/// HEIF files without `irot`/`imir` take XMP's too (exiftool wrote those fixtures).
@Suite struct XMPOrientationTests {
    static func packet(orientation: Int) -> Data {
        Data("""
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">\
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description \
        xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="\(orientation)"/></rdf:RDF>\
        </x:xmpmeta><?xpacket end="w"?>
        """.utf8)
    }

    /// 12 × 8, black at the stored top left, white elsewhere.
    static func stored(metadata: ImageMetadata, format: ImageFormat) throws -> Data {
        var pixels = PixelBuffer(width: 12, height: 8, filling: .white)
        pixels[pixel: 0, 0] = .black
        let image = Image(frames: [ImageFrame(pixels: pixels)], hasAlpha: false, metadata: metadata)
        var options = ImageCoderOptions()
        options.metadataPolicy = .all
        options.lossless = true
        return try CodersManager.shared.encode(image, as: format, options: options)
    }

    @Test(arguments: [ImageFormat.png, .webp])
    func orientationGivenOnlyInXMPIsApplied(format: ImageFormat) throws {
        let data = try Self.stored(metadata: ImageMetadata(xmp: Self.packet(orientation: 6)), format: format)
        let tags = try ExifTool.tags(of: data, ext: format == .png ? "png" : "webp")
        #expect(tags["XMP:Orientation"] as? Int == 6)
        #expect(tags["EXIF:Orientation"] == nil)

        let upright = try CodersManager.shared.decode(data)
        #expect(upright.orientation == .right)
        #expect(upright.size == ImageSize(width: 8, height: 12))
        // The stored top-left pixel, turned 90° clockwise, is at the top right.
        #expect(upright.pixels[pixel: 7, 0] == .black)

        var stored = ImageCoderOptions()
        stored.applyOrientation = false
        #expect(try CodersManager.shared.decode(data, options: stored).size == ImageSize(width: 12, height: 8))
    }

    /// A review's finding: the WebP decode applied XMP's orientation but kept the packet's
    /// `tiff:Orientation` as it was, so re-encoding with the metadata turned the upright
    /// pixels a second time. The kept XMP now says 1, as PNG's and JPEG's do.
    @Test(arguments: [ImageFormat.png, .webp])
    func theAppliedXMPOrientationIsResetInTheKeptMetadata(format: ImageFormat) throws {
        let data = try Self.stored(metadata: ImageMetadata(xmp: Self.packet(orientation: 6)), format: format)
        var options = ImageCoderOptions()
        options.readsMetadata = true
        let upright = try CodersManager.shared.decode(data, options: options)
        #expect(upright.size == ImageSize(width: 8, height: 12))
        let xmp = try #require(upright.metadata.xmp)
        #expect(xmp.withUnsafeBytes { ImageMetadata.xmpOrientation(in: $0) } ?? .up == .up)
        var keep = ImageCoderOptions()
        keep.metadataPolicy = .all
        keep.lossless = true
        let again = try CodersManager.shared.decode(CodersManager.shared.encode(upright, as: format, options: keep))
        #expect(again.size == ImageSize(width: 8, height: 12), "turned a second time")
    }

    /// EXIF written by the JPEG-style block (orientation 1, upright) beside an XMP that
    /// says 6: EXIF rules, as in Pillow.
    @Test(arguments: [ImageFormat.png, .webp])
    func exifOrientationRulesOverXMP(format: ImageFormat) throws {
        // A little-endian TIFF block with IFD0's Orientation (SHORT) = 1.
        let exif = Data([0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
        let data = try Self.stored(metadata: ImageMetadata(exif: exif, xmp: Self.packet(orientation: 6)), format: format)
        let image = try CodersManager.shared.decode(data)
        #expect(image.orientation == .up)
        #expect(image.size == ImageSize(width: 12, height: 8))
    }

    /// Fixtures/metadata/xmp-orientation.*: the 64 × 48 quadrant picture (stored top left
    /// yellow-white, bottom right black), no `irot`/`imir`, no EXIF, XMP's orientation 6.
    @Test(arguments: ["xmp-orientation.avif", "xmp-orientation.heic"])
    func anAVIFOrHEIFWithoutTransformsTakesXMPs(file: String) throws {
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("metadata").appendingPathComponent(file))
        let upright = try CodersManager.shared.decode(data)
        #expect(upright.orientation == .right)
        #expect(upright.size == ImageSize(width: 48, height: 64))
        // Turned 90° clockwise: the stored top left is at the top right, the stored bottom
        // right at the bottom left (lossy coding: near, not exact).
        let topRight = upright.pixels[pixel: 47, 0], bottomLeft = upright.pixels[pixel: 0, 63]
        #expect(topRight.red > 200 && topRight.green > 200, "\(topRight)")
        #expect(bottomLeft.red < 50 && bottomLeft.green < 50, "\(bottomLeft)")

        var stored = ImageCoderOptions()
        stored.applyOrientation = false
        let asStored = try CodersManager.shared.decode(data, options: stored)
        #expect(asStored.size == ImageSize(width: 64, height: 48))
        #expect(asStored.orientation == .right)
        var thumbnail = ImageCoderOptions()
        thumbnail.thumbnailPixelSize = ImageSize(width: 24, height: 32)
        #expect(try CodersManager.shared.decode(data, options: thumbnail).size == ImageSize(width: 24, height: 32))
    }
}
