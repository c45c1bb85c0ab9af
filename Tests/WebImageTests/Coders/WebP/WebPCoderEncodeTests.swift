import Foundation
import Testing
@testable import WebImage

/// WebPCoder's encoding, checked by decoding the result again.
@Suite struct WebPCoderEncodeTests {
    let coder = WebPCoder()

    @Test func lossyRoundTripKeepsSizeAndLooksTheSame() throws {
        let original = try coder.decode(Corpus.data("TestImageStatic.webp"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.compressionQuality = 0.9
        let data = try coder.encode(original, as: .webp, options: options)
        #expect(ImageFormat(sniffing: data) == .webp)
        let decoded = try coder.decode(data, options: ImageCoderOptions())
        #expect(decoded.size == original.size)
        #expect(decoded.frameCount == 1)
        #expect(!decoded.hasAlpha)
        #expect(WebPFixture.meanAbsoluteDifference(decoded.pixels, original.pixels) < 3)
    }

    /// Durations a file claims (each capped at 4.6 hours) add up past libwebp's 32-bit
    /// millisecond timestamps within 129 frames: the frames past 24.8 days last no time,
    /// instead of the conversion trapping (an APNG source made the image server crash).
    @Test func anAnimationLongerThanInt32MillisecondsIsEncoded() throws {
        let frame = PixelBuffer(width: 1, height: 1, filling: RGBAColor(red: 1, green: 2, blue: 3))
        let frames = (0..<200).map { _ in ImageFrame(pixels: frame, duration: 65_535) }
        let image = Image(frames: frames, format: .png, loopCount: 0, hasAlpha: false)
        let data = try coder.encode(image, as: .webp, options: ImageCoderOptions())
        #expect(ImageFormat(sniffing: data) == .webp)
        #expect(try coder.decode(data, options: ImageCoderOptions()).frameCount >= 2)
    }

    @Test func lowerQualityGivesASmallerFile() throws {
        let original = try coder.decode(Corpus.data("TestImageStatic.webp"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.compressionQuality = 0.95
        let high = try coder.encode(original, as: .webp, options: options)
        options.compressionQuality = 0.2
        let low = try coder.encode(original, as: .webp, options: options)
        #expect(low.count < high.count)
    }

    @Test func losslessRoundTripIsExactIncludingHiddenColour() throws {
        // Random RGBA, fully transparent pixels included, whose colour lossless must keep too.
        var random = SplitMix64(seed: 0x7765_6270)
        let bytes = (0..<(37 * 23 * 4)).map { index in
            index % 4 == 3 && index % 7 == 0 ? 0 : UInt8(truncatingIfNeeded: random.next())
        }
        let pixels = try PixelBuffer(width: 37, height: 23, bytes: bytes)
        var options = ImageCoderOptions()
        options.lossless = true
        let data = try coder.encode(Image(pixels: pixels), as: .webp, options: options)
        let decoded = try coder.decode(data, options: ImageCoderOptions())
        #expect(decoded.pixels == pixels)
        #expect(decoded.hasAlpha)
    }

    @Test func lossyEncodeKeepsAlphaExactly() throws {
        let original = try coder.decode(WebPFixture.data("lossless_alpha.webp"), options: ImageCoderOptions())
        let data = try coder.encode(original, as: .webp, options: ImageCoderOptions())
        let decoded = try coder.decode(data, options: ImageCoderOptions())
        #expect(decoded.hasAlpha)
        let alpha = { (buffer: PixelBuffer) in stride(from: 3, to: buffer.bytes.count, by: 4).map { buffer.bytes[$0] } }
        // libwebp stores the alpha plane losslessly at the default alpha quality.
        #expect(alpha(decoded.pixels) == alpha(original.pixels))
    }

    @Test func maxFileSizeIsMetBySearchingQuality() throws {
        let original = try coder.decode(Corpus.data("TestImageStatic.webp"), options: ImageCoderOptions())
        let best = try coder.encode(original, as: .webp, options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.maxFileSize = best.count / 3
        let data = try coder.encode(original, as: .webp, options: options)
        #expect(data.count <= best.count / 3)
        #expect(try coder.decode(data, options: ImageCoderOptions()).size == original.size)
    }

    @Test func losslessThatDoesNotFitFallsBackToLossy() throws {
        let original = try coder.decode(Corpus.data("TestImageStatic.webp"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.lossless = true
        let lossless = try coder.encode(original, as: .webp, options: options)
        options.maxFileSize = lossless.count / 4
        let data = try coder.encode(original, as: .webp, options: options)
        #expect(data.count <= lossless.count / 4)
    }

    @Test func maxPixelSizeScalesDownBeforeEncoding() throws {
        let original = try coder.decode(Corpus.data("TestImageStatic.webp"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.maxPixelSize = ImageSize(width: 100, height: 100)
        let data = try coder.encode(original, as: .webp, options: options)
        #expect(try coder.decode(data, options: ImageCoderOptions()).size == ImageSize(width: 100, height: 67))
    }

    @Test func animatedLosslessRoundTripKeepsFramesDurationsAndLoopCount() throws {
        let original = try coder.decode(WebPFixture.data("animated_lossless.webp"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.lossless = true
        let data = try coder.encode(original, as: .webp, options: options)
        let decoded = try coder.decode(data, options: ImageCoderOptions())
        #expect(decoded.frameCount == 4)
        #expect(decoded.loopCount == 3)
        #expect(decoded.frames.map(\.duration) == original.frames.map(\.duration))
        #expect(decoded.frames.map(\.pixels) == original.frames.map(\.pixels))
    }

    @Test func animatedGIFBecomesAnimatedLossyWebP() throws {
        let gif = try GIFCoder().decode(Corpus.data("TestImage.gif"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.compressionQuality = 0.8
        let data = try coder.encode(gif, as: .webp, options: options)
        let decoded = try coder.decode(data, options: ImageCoderOptions())
        #expect(decoded.frameCount == 5)
        #expect(decoded.loopCount == 0)
        #expect(decoded.frames.map(\.duration) == gif.frames.map(\.duration))
        for (ours, theirs) in zip(decoded.frames, gif.frames) {
            #expect(WebPFixture.meanAbsoluteDifference(ours.pixels, theirs.pixels) < 8)
        }
    }

    @Test func encodeFirstFrameOnlyWritesAStillImage() throws {
        let original = try coder.decode(WebPFixture.data("animated_lossless.webp"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.encodeFirstFrameOnly = true
        options.lossless = true
        let data = try coder.encode(original, as: .webp, options: options)
        let decoded = try coder.decode(data, options: ImageCoderOptions())
        #expect(decoded.frameCount == 1)
        #expect(decoded.pixels == original.frames[0].pixels)
    }

    @Test func encodesOnlyWebP() throws {
        #expect(coder.canEncode(to: .webp))
        #expect(!coder.canEncode(to: .png))
        let image = Image(pixels: PixelBuffer(width: 2, height: 2, filling: .white))
        #expect(throws: WebImageError.unsupportedFormat(.png)) { try coder.encode(image, as: .png, options: ImageCoderOptions()) }
    }

    @Test func sizeBeyondWebPsLimitIsAnEncodingError() throws {
        let image = Image(pixels: PixelBuffer(width: 16_384, height: 1, filling: .white))
        #expect {
            try coder.encode(image, as: .webp, options: ImageCoderOptions())
        } throws: { error in
            if case .encodingFailed = error as? WebImageError { return true }
            return false
        }
    }
}
