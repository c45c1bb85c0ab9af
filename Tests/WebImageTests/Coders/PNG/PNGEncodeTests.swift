import Foundation
import Testing
@testable import WebImage

@Suite struct PNGEncodeTests {
    let coder = PNGCoder()

    /// Byte 25 of a PNG is IHDR's colour type.
    func colorType(_ data: Data) -> UInt8? { data.count > 25 ? data[data.startIndex + 25] : nil }

    @Test(arguments: ["corpus/TestImage.png", "corpus/IndexedPNG.png", "corpus/RGBA16PNG.png", "corpus/TestEXIF.png",
                      "matrix/ct0_d2_trns_adam7.png", "matrix/ct4_d16.png", "matrix/ct3_d4_trns.png"])
    func encodeThenDecodeIsExact(_ name: String) throws {
        let image = try coder.decode(try PNGReference.data(name), options: ImageCoderOptions())
        let data = try coder.encode(image, as: .png, options: ImageCoderOptions())
        let decoded = try coder.decode(data, options: ImageCoderOptions())
        #expect(decoded.pixels == image.pixels, "\(name)")
        #expect(decoded.format == .png)
        #expect(ImageFormat(sniffing: data) == .png)
    }

    @Test func opaqueImagesAreWrittenAsRGBAndTransparentOnesAsRGBA() throws {
        let opaque = Image(pixels: PixelBuffer(width: 5, height: 4, filling: RGBAColor(red: 1, green: 2, blue: 3)))
        var pixels = PixelBuffer(width: 5, height: 4, filling: RGBAColor(red: 1, green: 2, blue: 3))
        pixels[pixel: 4, 3] = RGBAColor(red: 9, green: 8, blue: 7, alpha: 254)
        let transparent = Image(pixels: pixels)

        let rgb = try coder.encode(opaque, as: .png, options: ImageCoderOptions())
        let rgba = try coder.encode(transparent, as: .png, options: ImageCoderOptions())
        #expect(colorType(rgb) == 2)
        #expect(colorType(rgba) == 6)
        #expect(try coder.decode(rgb, options: ImageCoderOptions()).pixels == opaque.pixels)
        #expect(try !coder.decode(rgb, options: ImageCoderOptions()).hasAlpha)
        #expect(try coder.decode(rgba, options: ImageCoderOptions()).pixels == pixels)
    }

    @Test func maxPixelSizeScalesDownBeforeEncoding() throws {
        let image = try coder.decode(Corpus.data("TestImage.png"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.maxPixelSize = ImageSize(width: 100, height: 50)
        let decoded = try coder.decode(try coder.encode(image, as: .png, options: options), options: ImageCoderOptions())
        #expect(decoded.size == ImageSize(width: 50, height: 50))
    }

    @Test func maxFileSizeAndQualityAreIgnoredBecausePNGIsLossless() throws {
        let image = try coder.decode(Corpus.data("TestImage.png"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.maxFileSize = 100
        options.compressionQuality = 0.1
        let constrained = try coder.encode(image, as: .png, options: options)
        let plain = try coder.encode(image, as: .png, options: ImageCoderOptions())
        #expect(constrained == plain)
        #expect(constrained.count > 100)
    }

    @Test func refusesOtherFormats() throws {
        let image = Image(pixels: PixelBuffer(width: 1, height: 1, filling: .white))
        #expect(throws: WebImageError.unsupportedFormat(.jpeg)) { try coder.encode(image, as: .jpeg, options: ImageCoderOptions()) }
    }

    @Test func animatedImagesBecomeAPNGWithTheirChunks() throws {
        let frames = [RGBAColor.white, .black, .clear].map { ImageFrame(pixels: PixelBuffer(width: 3, height: 2, filling: $0), duration: 0.5) }
        let data = try coder.encode(Image(frames: frames, loopCount: 2), as: .png, options: ImageCoderOptions())
        let types = data.withUnsafeBytes { PNGChunksTestScan.types(in: $0) }
        #expect(types.first == "IHDR")
        #expect(types.filter { $0 == "fcTL" }.count == 3)
        #expect(types.firstIndex(of: "acTL") ?? .max < types.firstIndex(of: "IDAT") ?? -1)
        #expect(types.contains("fdAT"))
        #expect(types.last == "IEND")
        #expect(colorType(data) == 6)
    }

    /// A review's finding: a profile Little CMS takes and libpng refuses (here a rendering
    /// intent libpng calls invalid) was dropped with a warning, and the pixels were
    /// written untagged in its colours. They are now converted to sRGB, still and animated.
    @Test func aProfileLibpngRefusesLeavesSRGBPixels() throws {
        let source = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("color/display-p3.png"))
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        let kept = try PNGCoder().decode(source, options: keep)
        let profile = try #require(kept.colorProfile)
        // A rendering intent past libpng's 0xFFFF, in the header's bytes 64–67.
        var bytes = [UInt8](profile.data)
        bytes.replaceSubrange(64..<68, with: [0, 1, 0, 0])
        let odd = try ColorProfile(iccData: Data(bytes))
        let converted = try PNGCoder().decode(source, options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.metadataPolicy = .all
        for frames in [1, 2] {
            let image = Image(
                frames: Array(repeating: ImageFrame(pixels: kept.pixels, duration: 0.1), count: frames), format: .png,
                colorProfile: odd)
            let written = try PNGCoder().encode(image, as: .png, options: options)
            let again = try PNGCoder().decode(written, options: keep)
            #expect(again.colorProfile == nil, "\(frames) frame(s): no iCCP")
            #expect(again.frames.count == frames)
            for frame in again.frames {
                let differs = zip(frame.pixels.bytes, converted.pixels.bytes).contains { abs(Int($0) - Int($1)) > 2 }
                #expect(!differs, "\(frames) frame(s): the pixels are in sRGB")
            }
        }
    }
}
