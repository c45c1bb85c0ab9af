import Foundation
import Testing
@testable import WebImage

@Suite struct EncodeConstraintsTests {
    // MARK: Flatten

    @Test func flattenBlendsOntoTheBackgroundAndMakesAlphaOpaque() throws {
        let source = try PixelBuffer(width: 4, height: 1, bytes: [
            10, 20, 30, 255,     // opaque: unchanged
            200, 100, 50, 0,     // transparent: background
            255, 0, 0, 128,      // half: (255·128 + 0·127 + 127) / 255 = 128
            0, 0, 0, 51,         // a fifth black over the background
        ])
        let background = RGBAColor(red: 0, green: 0, blue: 255)
        let flat = source.flattened(onto: background)
        #expect(flat[pixel: 0, 0] == RGBAColor(red: 10, green: 20, blue: 30))
        #expect(flat[pixel: 1, 0] == background)
        #expect(flat[pixel: 2, 0] == RGBAColor(red: 128, green: 0, blue: 127))
        #expect(flat[pixel: 3, 0] == RGBAColor(red: 0, green: 0, blue: 204))
        #expect(!flat.containsTransparency)
    }

    @Test func jpegFlattensOntoWhiteWithoutABackgroundColor() throws {
        // The default lives in the JPEG coder: no `backgroundColor` means white.
        let data = try JPEGCoder().encode(Image(pixels: PixelBuffer(width: 3, height: 2, filling: .clear)), as: .jpeg, options: ImageCoderOptions())
        let flat = try JPEGCoder().decode(data, options: ImageCoderOptions()).pixels
        #expect(flat == PixelBuffer(width: 3, height: 2, filling: .white))
    }

    // MARK: File size

    /// A stand-in encoder whose output grows with quality: 100 bytes plus 1000 per unit of
    /// quality, and the quality it was asked for written in the first 8 bytes so a test can
    /// tell which encode came back.
    final class FakeEncoder {
        var qualities: [Double] = []

        static func size(for quality: Double) -> Int { 100 + Int(quality * 1000) }

        func encode(_ quality: Double) -> Data {
            qualities.append(quality)
            var data = withUnsafeBytes(of: quality.bitPattern) { Data($0) }
            data.append(Data(count: Self.size(for: quality) - data.count))
            return data
        }

        static func quality(of data: Data) -> Double {
            Double(bitPattern: data.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
        }
    }

    @Test func withoutALimitEncodesOnceAtTheRequestedQuality() throws {
        var options = ImageCoderOptions()
        options.compressionQuality = 0.7
        let encoder = FakeEncoder()
        let data = try EncodeConstraints.fitFileSize(options: options) { encoder.encode($0) }
        #expect(encoder.qualities == [0.7])
        #expect(FakeEncoder.quality(of: data) == 0.7)
    }

    @Test func aFirstEncodeThatFitsIsKept() throws {
        var options = ImageCoderOptions()
        options.maxFileSize = 2000
        let encoder = FakeEncoder()
        let data = try EncodeConstraints.fitFileSize(options: options) { encoder.encode($0) }
        #expect(encoder.qualities == [1])
        #expect(data.count == 1100)
    }

    @Test(arguments: [(1.0, 600), (1.0, 777), (0.4, 300), (1.0, 101), (0.9, 1000)])
    func searchReturnsTheBestTestedQualityThatFits(quality: Double, limit: Int) throws {
        var options = ImageCoderOptions()
        options.compressionQuality = quality
        options.maxFileSize = limit
        let encoder = FakeEncoder()
        let data = try EncodeConstraints.fitFileSize(options: options) { encoder.encode($0) }
        #expect(data.count <= limit)
        let fitting = encoder.qualities.filter { FakeEncoder.size(for: $0) <= limit }
        #expect(FakeEncoder.quality(of: data) == fitting.max())
        // Close to the true best, (limit − 100) / 1000, and never above the request.
        let best = min(quality, Double(limit - 100) / 1000)
        #expect(FakeEncoder.quality(of: data) <= quality)
        #expect(best - FakeEncoder.quality(of: data) <= quality / 100, "best \(best)")
        #expect(encoder.qualities.count <= 9)
    }

    @Test func whenNothingFitsTheQualityZeroEncodingIsReturned() throws {
        var options = ImageCoderOptions()
        options.maxFileSize = 50
        let encoder = FakeEncoder()
        let data = try EncodeConstraints.fitFileSize(options: options) { encoder.encode($0) }
        #expect(FakeEncoder.quality(of: data) == 0)
        #expect(data.count == 100)
        #expect(encoder.qualities == [1, 0])
    }

    @Test func qualityOutsideZeroToOneIsClamped() throws {
        var options = ImageCoderOptions()
        options.compressionQuality = 7
        let encoder = FakeEncoder()
        _ = try EncodeConstraints.fitFileSize(options: options) { encoder.encode($0) }
        options.compressionQuality = -1
        _ = try EncodeConstraints.fitFileSize(options: options) { encoder.encode($0) }
        #expect(encoder.qualities == [1, 0])
    }

    @Test func encoderErrorsPropagate() {
        var options = ImageCoderOptions()
        options.maxFileSize = 10
        #expect(throws: WebImageError.encodingFailed("boom")) {
            try EncodeConstraints.fitFileSize(options: options) { _ in throw WebImageError.encodingFailed("boom") }
        }
    }

    // MARK: Prepare

    static func animation(width: Int, height: Int, frames: Int) -> Image {
        Image(frames: (0..<frames).map { i in
            ImageFrame(pixels: PixelBuffer(width: width, height: height, filling: RGBAColor(red: UInt8(i * 40), green: 0, blue: 0)), duration: 0.1 * Double(i + 1))
        })
    }

    @Test func prepareScalesEveryFrameDownToFitKeepingAspectAndDurations() {
        var options = ImageCoderOptions()
        options.maxPixelSize = ImageSize(width: 100, height: 100)
        let frames = EncodeConstraints.prepare(Self.animation(width: 400, height: 200, frames: 3), options: options)
        #expect(frames.count == 3)
        #expect(frames.allSatisfy { $0.pixels.size == ImageSize(width: 100, height: 50) })
        #expect(frames.map(\.duration) == [0.1, 0.2, 0.1 * 3])
        #expect(frames[2].pixels[pixel: 50, 25] == RGBAColor(red: 80, green: 0, blue: 0))
    }

    @Test func prepareNeverScalesUp() {
        var options = ImageCoderOptions()
        options.maxPixelSize = ImageSize(width: 1000, height: 1000)
        let image = Self.animation(width: 40, height: 30, frames: 2)
        let frames = EncodeConstraints.prepare(image, options: options)
        #expect(frames == image.frames)
        options.maxPixelSize = ImageSize(width: 40, height: 30)
        #expect(EncodeConstraints.prepare(image, options: options) == image.frames)
    }

    @Test func prepareIgnoresAnEmptyMaxPixelSize() {
        var options = ImageCoderOptions()
        options.maxPixelSize = ImageSize(width: 0, height: 10)
        let image = Self.animation(width: 40, height: 30, frames: 1)
        #expect(EncodeConstraints.prepare(image, options: options) == image.frames)
    }

    @Test func prepareKeepsOnlyTheFirstFrameWhenAsked() {
        var options = ImageCoderOptions()
        options.encodeFirstFrameOnly = true
        let image = Self.animation(width: 40, height: 30, frames: 4)
        #expect(EncodeConstraints.prepare(image, options: options) == [image.frames[0]])
        options.maxPixelSize = ImageSize(width: 20, height: 20)
        let frames = EncodeConstraints.prepare(image, options: options)
        #expect(frames.count == 1)
        #expect(frames[0].pixels.size == ImageSize(width: 20, height: 15))
    }

    /// A review's finding: the AVIF and JPEG XL encoders converted a frame's duration to an
    /// integer unchecked, so an infinite or absurd duration (a frame an API caller made)
    /// trapped. Every animated encoder now writes such a frame.
    @Test(arguments: [ImageFormat.gif, .webp, .png, .avif, .jpegXL])
    func framesOfAnyDurationAreEncodedWithoutATrap(format: ImageFormat) throws {
        #expect(EncodeConstraints.milliseconds(.infinity) == 0)
        #expect(EncodeConstraints.milliseconds(-1) == 0)
        #expect(EncodeConstraints.milliseconds(1e30) == Int(UInt32.max))
        #expect(EncodeConstraints.milliseconds(0.0125) == 13)
        // Every one of these encoders is built in here: a missing one is a failure, not a skip.
        guard CodersManager.shared.canEncode(to: format) else {
            Issue.record("no encoder for \(format)")
            return
        }
        let frames = [TimeInterval.infinity, 1e30, .nan, -5, 0.05].enumerated().map { index, duration in
            ImageFrame(pixels: PixelBuffer(width: 4, height: 4, filling: RGBAColor(red: UInt8(index * 50), green: 0, blue: 0, alpha: 255)),
                       duration: duration)
        }
        let data = try CodersManager.shared.encode(Image(frames: frames, loopCount: 0), as: format)
        #expect(try CodersManager.shared.decode(data).frameCount >= 1)
    }
}
