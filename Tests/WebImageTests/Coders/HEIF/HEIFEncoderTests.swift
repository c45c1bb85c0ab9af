import Foundation
import Testing
@testable import WebImage

/// Not gated, unlike ``HEIFEncoderTests``: there this check could never fail, the gate
/// being the very condition it checks. Debian 12's libheif1 links x265 (and `make test`
/// installs its plugin): on the project's machines a libheif without it is a broken install.
@Suite struct HEIFEncoderAvailabilityTests {
    @Test func theInstalledLibheifCanEncode() {
        #expect(HEIFCoder.encoderAvailable, "libheif has no HEVC encoder")
        #expect(HEIFCoder().canEncode(to: .heic))
        #expect(CodersManager.shared.canEncode(to: .heic))
    }
}

/// HEIC encoding through libheif's HEVC encoder (x265 in Debian's libheif), read back with
/// our decoder.
@Suite(.enabled(if: HEIFCoder.encoderAvailable, "this libheif has no HEVC encoder"))
struct HEIFEncoderTests {
    @Test func aRoundTripKeepsTheSizeAndThePixelsClose() throws {
        let card = try AVIFCoderTests.card()
        var options = ImageCoderOptions()
        options.compressionQuality = 0.9
        let data = try HEIFCoder().encode(Image(pixels: card, hasAlpha: false), as: .heic, options: options)
        #expect(ImageFormat(sniffing: data) == .heic)
        let decoded = try CodersManager.shared.decode(data)
        #expect(decoded.format == .heic)
        #expect(decoded.size == card.size)
        #expect(!decoded.hasAlpha)
        let error = AVIFCoderTests.meanError(decoded.pixels, card)
        #expect(error < 6, "mean error \(error)")
    }

    @Test func transparentPixelsKeepTheirAlpha() throws {
        let card = try AVIFCoderTests.card { x, _ in x < 24 ? 0 : 255 }
        let data = try HEIFCoder().encode(Image(pixels: card, hasAlpha: true), as: .heic, options: ImageCoderOptions())
        let decoded = try HEIFCoder().decode(data, options: ImageCoderOptions())
        #expect(decoded.hasAlpha)
        #expect(decoded.pixels[pixel: 2, 10].alpha < 16)
        #expect(decoded.pixels[pixel: 40, 10].alpha > 240)
    }

    @Test func lowerQualityGivesSmallerFilesAndLimitsAreMet() throws {
        let image = Image(pixels: try AVIFCoderTests.card(), hasAlpha: false)
        var options = ImageCoderOptions()
        options.compressionQuality = 0.95
        let high = try HEIFCoder().encode(image, as: .heic, options: options)
        options.compressionQuality = 0.1
        let low = try HEIFCoder().encode(image, as: .heic, options: options)
        #expect(low.count < high.count)
        options.compressionQuality = 1
        options.maxFileSize = (low.count + high.count) / 2
        #expect(try HEIFCoder().encode(image, as: .heic, options: options).count <= (low.count + high.count) / 2)
        options.maxFileSize = nil
        options.maxPixelSize = ImageSize(width: 24, height: 24)
        let small = try HEIFCoder().encode(image, as: .heic, options: options)
        #expect(try HEIFCoder().decode(small, options: ImageCoderOptions()).size == ImageSize(width: 24, height: 16))
    }

    @Test func anAnimationIsStoredAsItsFirstFrame() throws {
        let first = try AVIFCoderTests.card()
        let second = PixelBuffer(width: 48, height: 32, filling: RGBAColor(red: 0, green: 0, blue: 255, alpha: 255))
        let image = Image(frames: [ImageFrame(pixels: first, duration: 0.1), ImageFrame(pixels: second, duration: 0.1)], hasAlpha: false)
        let decoded = try HEIFCoder().decode(try HEIFCoder().encode(image, as: .heic, options: ImageCoderOptions()), options: ImageCoderOptions())
        #expect(decoded.frameCount == 1)
        #expect(AVIFCoderTests.meanError(decoded.pixels, first) < 8)
    }
}
