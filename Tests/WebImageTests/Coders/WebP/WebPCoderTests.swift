import Foundation
import Testing
@testable import WebImage

/// WebPCoder's decoding against Pillow's (Fixtures/webp/references.json, made by
/// make_webp_fixtures.py with Pillow's own libwebp 1.6): libwebp decodes deterministically,
/// so every frame must match byte for byte, lossy ones included.
@Suite struct WebPCoderTests {
    let coder = WebPCoder()

    @Test(arguments: ["TestImageStatic.webp", "TestImageAnimated.webp", "TestAnimatedImageMemory.webp"])
    func corpusFileMatchesPillowExactly(name: String) throws {
        try expectMatchesReference(Corpus.data(name), reference: WebPFixture.reference(name))
    }

    @Test(arguments: ["lossless_alpha.webp", "animated_lossless.webp"])
    func fixtureMatchesPillowExactly(name: String) throws {
        try expectMatchesReference(WebPFixture.data(name), reference: WebPFixture.reference(name))
    }

    @Test func corpusFramesLoopsAndSizesAreSDWebImages() throws {
        let still = try coder.decode(Corpus.data("TestImageStatic.webp"), options: ImageCoderOptions())
        #expect(still.frameCount == 1)
        #expect(!still.hasAlpha)
        #expect(still.format == .webp)
        let animated = try coder.decode(Corpus.data("TestImageAnimated.webp"), options: ImageCoderOptions())
        #expect(animated.frameCount == 8)
        #expect(animated.loopCount == 0)
        #expect(animated.hasAlpha)
        let memory = try coder.decode(Corpus.data("TestAnimatedImageMemory.webp"), options: ImageCoderOptions())
        #expect(memory.frameCount == 16)
        #expect(memory.size == ImageSize(width: 600, height: 600))
        #expect(abs(memory.frames[0].duration - 0.333) < 1e-9)
    }

    @Test func durationsOfTenMillisecondsOrLessBecomeOneTenth() throws {
        let image = try coder.decode(WebPFixture.data("animated_lossless.webp"), options: ImageCoderOptions())
        // Stored 40, 70, 5 and 120 ms.
        #expect(image.frames.map(\.duration) == [0.04, 0.07, 0.1, 0.12])
        #expect(image.loopCount == 3)
    }

    @Test func exifOrientationIsReadAndApplied() throws {
        let data = try WebPFixture.data("orientation_6.webp")
        var stored = ImageCoderOptions()
        stored.applyOrientation = false
        let asStored = try coder.decode(data, options: stored)
        #expect(asStored.orientation == .right)
        #expect(asStored.size == ImageSize(width: 12, height: 8))
        #expect(FixtureChecksum.crc32(asStored.pixels.bytes) == (try WebPFixture.reference("orientation_6.webp").crc32[0]))
        let upright = try coder.decode(data, options: ImageCoderOptions())
        #expect(upright.orientation == .right)
        #expect(upright.size == ImageSize(width: 8, height: 12))
        #expect(upright.pixels == ImageOrientation.right.apply(to: asStored.pixels))
        // The stored top-left pixel is black; turned 90° clockwise it is at the top right.
        #expect(upright.pixels[pixel: 7, 0] == .black)
    }

    @Test func thumbnailOfAnOrientedImageFitsTheBoxUpright() throws {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 6, height: 6)
        let image = try coder.decode(WebPFixture.data("orientation_6.webp"), options: options)
        #expect(image.size == ImageSize(width: 4, height: 6))
        #expect(image.isThumbnail)
    }

    @Test func scaledDecodeGivesTheExactThumbnailSize() throws {
        let data = try Corpus.data("TestImageStatic.webp")
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 100, height: 100)
        let thumbnail = try coder.decode(data, options: options)
        #expect(thumbnail.size == ImageSize(width: 100, height: 67))
        #expect(thumbnail.isThumbnail)
        options.preserveAspectRatio = false
        #expect(try coder.decode(data, options: options).size == ImageSize(width: 100, height: 100))
        // libwebp's scaled decode shows the same picture as a full decode resized afterwards.
        let full = try coder.decode(data, options: ImageCoderOptions())
        let resized = full.pixels.resized(to: ImageSize(width: 100, height: 67))
        #expect(WebPFixture.meanAbsoluteDifference(thumbnail.pixels, resized) < 6)
    }

    /// A lossy WebP with alpha is shrunk premultiplied, as every other format: libwebp's
    /// scaled decode rescales its colour and alpha apart, so the black hidden under the
    /// transparent half bled into the edge (a dark-red fringe, about (128, 0, 0, 128)).
    @Test func aLossyThumbnailWithAlphaHasNoFringe() throws {
        // Opaque red on the left, transparent black on the right: the edge on a macroblock
        // boundary, so the encoder's own blocks do not mix the halves.
        var bytes: [UInt8] = []
        for _ in 0..<64 { for x in 0..<64 { bytes += x < 32 ? [255, 0, 0, 255] : [0, 0, 0, 0] } }
        let data = try WebPCoder.encodeStill(try PixelBuffer(width: 64, height: 64, bytes: bytes), quality: 0.9, lossless: false)
        var options = ImageCoderOptions()
        // 21 pixels: the edge falls midway through a column (32 of 64 is 10.5 of 21).
        options.thumbnailPixelSize = ImageSize(width: 21, height: 21)
        let thumbnail = try coder.decode(data, options: options)
        #expect(thumbnail.size == ImageSize(width: 21, height: 21))
        var edgePixels = 0
        for y in 0..<21 {
            for x in 0..<21 {
                let pixel = thumbnail.pixels[pixel: x, y]
                guard pixel.alpha >= 32, pixel.alpha < 224 else { continue }
                edgePixels += 1
                #expect(pixel.red >= 220, "a fringe at (\(x), \(y)): \(pixel)")
            }
        }
        #expect(edgePixels > 0, "the thumbnail has no partly transparent edge to check")
        // The same picture as the full decode resampled by the library.
        let full = try coder.decode(data, options: ImageCoderOptions())
        #expect(WebPFixture.meanAbsoluteDifference(thumbnail.pixels, full.pixels.resized(to: thumbnail.size)) < 1)
        // Within four times the thumbnail the whole image is decoded; a larger one is first
        // shrunk by libwebp to four times it, not decoded whole (a source's memory for a
        // thumbnail).
        #expect(DecodeGeometry.shrinkLeaving(4, of: ImageSize(width: 21, height: 21), from: ImageSize(width: 64, height: 64)) == ImageSize(width: 64, height: 64))
        #expect(DecodeGeometry.shrinkLeaving(4, of: ImageSize(width: 100, height: 75), from: ImageSize(width: 4000, height: 3000)) == ImageSize(width: 400, height: 300))
    }

    @Test func scaleDownLimitShrinksAStillImage() throws {
        var options = ImageCoderOptions()
        options.scaleDownLimitBytes = 4 * 10_000
        let image = try coder.decode(Corpus.data("TestImageStatic.webp"), options: options)
        #expect(image.size == DecodeGeometry.scaledDown(ImageSize(width: 550, height: 368), limitBytes: 40_000, frameCount: 1))
        #expect(image.size.pixelCount <= 10_000)
        #expect(image.isThumbnail)
    }

    @Test func thumbnailAndScaleDownApplyToEveryAnimatedFrame() throws {
        let data = try WebPFixture.data("animated_lossless.webp")
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 8, height: 8)
        let thumbnail = try coder.decode(data, options: options)
        #expect(thumbnail.frameCount == 4)
        #expect(thumbnail.frames.allSatisfy { $0.pixels.size == ImageSize(width: 8, height: 8) })
        #expect(thumbnail.isThumbnail)
        var limited = ImageCoderOptions()
        limited.scaleDownLimitBytes = 4 * 4 * 64   // 64 pixels for each of 4 frames
        let scaled = try coder.decode(data, options: limited)
        #expect(scaled.frames.allSatisfy { $0.pixels.size == ImageSize(width: 8, height: 8) })
    }

    @Test func decodeFirstFrameOnlyGivesTheFirstCompositedFrame() throws {
        let data = try Corpus.data("TestAnimatedImageMemory.webp")
        var options = ImageCoderOptions()
        options.decodeFirstFrameOnly = true
        let image = try coder.decode(data, options: options)
        #expect(image.frameCount == 1)
        #expect(image.loopCount == 1)
        #expect(image.frames[0].duration == 0)
        #expect(FixtureChecksum.crc32(image.pixels.bytes) == (try WebPFixture.reference("TestAnimatedImageMemory.webp").crc32[0]))
    }

    @Test func allFramesMustFitThePixelLimitButTheFirstAloneMayDecode() throws {
        let data = try Corpus.data("TestAnimatedImageMemory.webp")
        var options = ImageCoderOptions()
        options.pixelLimit = 600 * 600 * 4
        #expect(WebPFixture.decodeError(data, options) == .imageTooLarge(width: 600, height: 600, limit: 600 * 600 * 4))
        options.decodeFirstFrameOnly = true
        #expect(try coder.decode(data, options: options).frameCount == 1)
    }

    @Test func recognisesOnlyWebP() throws {
        #expect(coder.canDecode(try Corpus.data("TestImageStatic.webp")))
        #expect(!coder.canDecode(try Corpus.data("TestImage.gif")))
        #expect(WebPFixture.isBadImageData(WebPFixture.decodeError(try Corpus.data("TestImage.gif"))))
    }

    private func expectMatchesReference(_ data: Data, reference: FrameChecksumReference) throws {
        let image = try coder.decode(data, options: ImageCoderOptions())
        reference.expectMatches(image, loopCount: reference.loopCount)
    }
}

/// The WebP fixtures, their references, and small checks the WebP suites share.
enum WebPFixture {
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("webp").appendingPathComponent(name))
    }

    static func reference(_ name: String) throws -> FrameChecksumReference {
        try FrameChecksumReference.load("webp", name)
    }

    /// The offsets just past each `ANMF` chunk's payload (before any pad byte).
    static func frameEnds(_ data: Data) -> [Int] {
        let bytes = [UInt8](data)
        var ends: [Int] = []
        var pos = 12
        while pos + 8 <= bytes.count {
            let size = Int(bytes[pos + 4]) | Int(bytes[pos + 5]) << 8 | Int(bytes[pos + 6]) << 16 | Int(bytes[pos + 7]) << 24
            if bytes[pos..<pos + 4].elementsEqual("ANMF".utf8) { ends.append(pos + 8 + size) }
            pos += 8 + size + size % 2
        }
        return ends
    }

    static func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        guard a.size == b.size else { return .infinity }
        let total = zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        return Double(total) / Double(a.bytes.count)
    }

    static func decodeError(_ data: Data, _ options: ImageCoderOptions = ImageCoderOptions()) -> WebImageError? {
        WebPCoder().decodeError(data, options: options)
    }

    static func isBadImageData(_ error: WebImageError?) -> Bool {
        if case .badImageData = error { return true }
        return false
    }
}
