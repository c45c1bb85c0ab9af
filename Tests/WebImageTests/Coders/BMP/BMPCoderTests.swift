import Foundation
import Testing
@testable import WebImage

@Suite struct BMPCoderTests {
    let coder = BMPCoder()
    static let references = PNGReference.load(folder: "bmp")
    static let names = references.keys.sorted()

    func fixture(_ name: String) throws -> Data { try PNGReference.data(name, folder: "bmp") }

    @Test func referencesAreBundled() {
        #expect(BMPCoderTests.names.count == 20)
    }

    @Test(arguments: names)
    func decodesExactlyLikePillow(_ name: String) throws {
        let reference = try #require(BMPCoderTests.references[name])
        let image = try coder.decode(try fixture(name), options: ImageCoderOptions())
        reference.expectMatches(image, name)
        #expect(image.format == .bmp)
        #expect(image.loopCount == 1)
    }

    @Test func reportsAlphaOnlyWhereTheFileHasIt() throws {
        for name in ["32bit_v4_alpha.bmp", "32bit_v5_alpha_topdown.bmp", "rle8_skips.bmp", "rle4_skips.bmp"] {
            #expect(try coder.decode(fixture(name), options: ImageCoderOptions()).hasAlpha, "\(name)")
        }
        // A plain (BI_RGB) 32-bit file's fourth byte is reserved, whether 0 or not (Pillow's
        // RGBA save puts alpha there, which browsers ignore too).
        for name in ["32bit_zero_alpha.bmp", "pillow_32bit_alpha.bmp", "24bit_topdown.bmp", "16bit_565.bmp", "rle8.bmp", "os2_8bit.bmp"] {
            let image = try coder.decode(fixture(name), options: ImageCoderOptions())
            #expect(!image.hasAlpha, "\(name)")
            #expect(!image.pixels.containsTransparency, "\(name)")
        }
    }

    @Test func bottomUpAndTopDownStoreTheSameImage() throws {
        let topDown = try coder.decode(fixture("32bit_v5_alpha_topdown.bmp"), options: ImageCoderOptions())
        let bottomUp = try coder.decode(fixture("32bit_v4_alpha.bmp"), options: ImageCoderOptions())
        // Both files hold the same bytes; read in opposite row orders they mirror vertically.
        let mirrored = ImageOrientation.downMirrored.apply(to: bottomUp.pixels)
        #expect(topDown.pixels == mirrored)
    }

    @Test(arguments: ["32bit_v4_alpha.bmp", "rle4_skips.bmp", "os2_24bit.bmp", "16bit_555.bmp"])
    func encodeThenDecodeIsExact(_ name: String) throws {
        let image = try coder.decode(try fixture(name), options: ImageCoderOptions())
        let data = try coder.encode(image, as: .bmp, options: ImageCoderOptions())
        #expect(data.count == 122 + image.size.pixelCount * 4)
        #expect(data[data.startIndex + 14] == 108)   // BITMAPV4HEADER
        let decoded = try coder.decode(data, options: ImageCoderOptions())
        #expect(decoded.pixels == image.pixels, "\(name)")
        #expect(decoded.hasAlpha)
    }

    @Test func encodesTheFirstFrameScaledToMaxPixelSize() throws {
        let frames = [RGBAColor.white, .black].map { ImageFrame(pixels: PixelBuffer(width: 40, height: 20, filling: $0), duration: 0.1) }
        var options = ImageCoderOptions()
        options.maxPixelSize = ImageSize(width: 10, height: 10)
        let decoded = try coder.decode(try coder.encode(Image(frames: frames), as: .bmp, options: options), options: ImageCoderOptions())
        #expect(decoded.size == ImageSize(width: 10, height: 5))
        #expect(decoded.pixels[pixel: 5, 2] == .white)
        #expect(throws: WebImageError.unsupportedFormat(.png)) { try coder.encode(Image(frames: frames), as: .png, options: options) }
    }

    @Test func decodesAThumbnail() throws {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 6, height: 6)
        let image = try coder.decode(try fixture("24bit_topdown.bmp"), options: options)
        #expect(image.size == ImageSize(width: 6, height: 4))
        #expect(image.isThumbnail)
    }
}
