import Foundation
import Testing
@testable import WebImage

/// AVIFCoder against Pillow's AVIF plugin (Fixtures/avif/make_references.py).
///
/// Tolerance: libavif 0.11 (ours, with libyuv) and Pillow's libavif 1.4 convert YUV to RGB
/// and 10 to 8 bits with slightly different rounding and chroma upsampling, so sampled
/// pixels may differ by a few levels: mean absolute difference per channel at most 1, no
/// channel off by more than 6 (measured: TestHDR.avif mean 0.31, max 3; the small fixtures
/// identical).
@Suite struct AVIFCoderTests {
    static let references: [String: SampledReference] = (try? SampledReference.load("avif")) ?? [:]

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("avif").appendingPathComponent(name))
    }

    /// A 48x32 opaque test card: smooth gradients plus hard edges.
    static func card(alpha: (Int, Int) -> UInt8 = { _, _ in 255 }) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<32 {
            for x in 0..<48 {
                bytes += [UInt8(x * 5), UInt8(y * 8), x < 24 ? 200 : 30, alpha(x, y)]
            }
        }
        return try PixelBuffer(width: 48, height: 32, bytes: bytes)
    }

    static func meanError(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        zip(a.bytes, b.bytes).reduce(0) { $0 + Double(abs(Int($1.0) - Int($1.1))) } / Double(a.bytes.count)
    }

    // MARK: Decoding

    /// The corpus's 10-bit PQ photo: shape and flags as Pillow reads them; its pixels are
    /// tone-mapped (HDRToneMappingTests), not Pillow's code values read as sRGB.
    @Test func decodesTenBitHDRToEightBitRGBAToneMapped() throws {
        let reference = try #require(Self.references["TestHDR.avif"])
        let data = try Corpus.data("TestHDR.avif")
        #expect(AVIFCoder().canDecode(data))
        let image = try AVIFCoder().decode(data, options: ImageCoderOptions())
        #expect(image.size == ImageSize(width: 2048, height: 858))
        #expect(image.frameCount == 1)
        #expect(image.format == .avif)
        #expect(image.hasAlpha == false)
        #expect(image.orientation == .up)
        let diff = reference.difference(to: image.pixels)
        #expect(diff.mean > 5, "mean difference \(diff.mean) from Pillow's untone-mapped reading")
    }

    @Test(arguments: 1...8)
    func appliesIrotImirAsOrientation(orientation: Int) throws {
        let name = "orientation-\(orientation).avif"
        let reference = try #require(Self.references[name])
        let data = try Self.fixture(name)
        let image = try AVIFCoder().decode(data, options: ImageCoderOptions())
        #expect(image.orientation == ImageOrientation(exifValue: orientation))
        #expect(image.size == ImageSize(width: reference.width, height: reference.height))
        let diff = reference.difference(to: image.pixels)
        #expect(diff.mean <= 2, "mean difference \(diff.mean)")

        var stored = ImageCoderOptions()
        stored.applyOrientation = false
        let raw = try AVIFCoder().decode(data, options: stored)
        #expect(raw.orientation == image.orientation)
        #expect(raw.size == ImageSize(width: 64, height: 48))
        #expect(raw.orientation.apply(to: raw.pixels) == image.pixels)
    }

    @Test func decodesAlphaAsStraightRGBA() throws {
        let reference = try #require(Self.references["alpha.avif"])
        let image = try AVIFCoder().decode(Self.fixture("alpha.avif"), options: ImageCoderOptions())
        #expect(image.hasAlpha)
        let diff = reference.difference(to: image.pixels)
        #expect(diff.mean <= 2, "mean difference \(diff.mean)")
        #expect(image.pixels[pixel: 0, 0].alpha < 16)
        #expect(image.pixels[pixel: 31, 0].alpha == 255)
    }

    /// An AV1 item without its `pixi` property (libheif 1.11 and older wrote none; Pillow's
    /// hopper-missing-pixi.avif is one) decodes as the same file with it: here every `pixi`
    /// box of two fixtures renamed to a type nobody reads, still and animated (the frame
    /// source parses with its own decoder).
    @Test(arguments: ["alpha.avif", "animated.avif"])
    func decodesItemsWithoutAPixiProperty(name: String) throws {
        let original = try Self.fixture(name)
        var bytes = [UInt8](original)
        var renamed = 0
        for index in 0..<(bytes.count - 4) where bytes[index..<index + 4].elementsEqual("pixi".utf8) {
            bytes[index] = UInt8(ascii: "x")
            renamed += 1
        }
        #expect(renamed >= 1)
        let withoutPixi = Data(bytes)
        let expected = try AVIFCoder().decode(original, options: ImageCoderOptions())
        let decoded = try AVIFCoder().decode(withoutPixi, options: ImageCoderOptions())
        #expect(decoded.frames.map(\.pixels) == expected.frames.map(\.pixels))
        let animation = try AnimatedImage(data: withoutPixi)
        #expect(animation.frameCount == expected.frames.count)
    }

    @Test func decodesEverySequenceFrameWithItsDuration() throws {
        let reference = try #require(Self.references["animated.avif"])
        let samples = try #require(reference.frameSamples)
        let image = try AVIFCoder().decode(Self.fixture("animated.avif"), options: ImageCoderOptions())
        #expect(image.frameCount == 3)
        #expect(image.frameCount == reference.frames)
        // libavif 0.11 cannot read the edit list's repetition count: sequences loop forever.
        #expect(image.loopCount == 0)
        #expect(image.frames.map { ($0.duration * 1000).rounded() } == (reference.durations ?? []).map(Double.init))
        for (frame, sample) in zip(image.frames, samples) {
            let diff = sample.difference(to: frame.pixels)
            #expect(diff.mean <= 2, "mean difference \(diff.mean)")
        }

        var first = ImageCoderOptions()
        first.decodeFirstFrameOnly = true
        let still = try AVIFCoder().decode(Self.fixture("animated.avif"), options: first)
        #expect(still.frameCount == 1)
        #expect(still.pixels == image.pixels)
    }

    @Test func boundsThePixelsOfAllFramesTogether() throws {
        var options = ImageCoderOptions()
        options.pixelLimit = 32 * 24 * 2
        #expect(throws: WebImageError.imageTooLarge(width: 32, height: 24 * 3, limit: 32 * 24 * 2)) {
            try AVIFCoder().decode(Self.fixture("animated.avif"), options: options)
        }
        options.decodeFirstFrameOnly = true
        #expect(try AVIFCoder().decode(Self.fixture("animated.avif"), options: options).frameCount == 1)
        // Neither a scale-down limit nor a thumbnail lifts the bound: every frame is decoded
        // at its source size before it is scaled, so the limit counts the work at that size
        // (as for GIF, APNG, WebP and JPEG XL). Counted at the size kept, a 1-pixel thumbnail
        // let a sequence of millions of frames through.
        options.decodeFirstFrameOnly = false
        options.scaleDownLimitBytes = 32 * 24 * 4
        #expect(throws: WebImageError.imageTooLarge(width: 32, height: 24 * 3, limit: 32 * 24 * 2)) {
            try AVIFCoder().decode(Self.fixture("animated.avif"), options: options)
        }
        options.scaleDownLimitBytes = nil
        options.thumbnailPixelSize = ImageSize(width: 1, height: 1)
        #expect(throws: WebImageError.imageTooLarge(width: 32, height: 24 * 3, limit: 32 * 24 * 2)) {
            try AVIFCoder().decode(Self.fixture("animated.avif"), options: options)
        }
        // Within the limit, a scale-down still shrinks the frames until all of them fit.
        options.thumbnailPixelSize = nil
        options.pixelLimit = 32 * 24 * 3
        options.scaleDownLimitBytes = 32 * 24 * 4
        let scaled = try AVIFCoder().decode(Self.fixture("animated.avif"), options: options)
        #expect(scaled.frameCount == 3)
        #expect(scaled.size.pixelCount * 3 <= 32 * 24)
        #expect(scaled.isThumbnail)
    }

    @Test func decodesThumbnailWithinTheBox() throws {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 512, height: 512)
        let image = try AVIFCoder().decode(Corpus.data("TestHDR.avif"), options: options)
        #expect(image.size.width == 512)
        #expect(image.size.height <= 215)
        #expect(image.isThumbnail)
    }

    // MARK: Bad input

    @Test func refusesImagesAboveThePixelLimit() throws {
        var options = ImageCoderOptions()
        options.pixelLimit = 2000
        #expect(throws: WebImageError.imageTooLarge(width: 2048, height: 858, limit: 2000)) {
            try AVIFCoder().decode(Corpus.data("TestHDR.avif"), options: options)
        }
    }

    @Test func acceptsAVIFBrandsOnly() throws {
        #expect(AVIFCoder().canDecode(try Self.fixture("animated.avif")))
        #expect(AVIFCoder().canDecode(try Corpus.data("TestImage.heic")) == false)
        #expect(AVIFCoder().canDecode(try Corpus.data("TestImage.png")) == false)
    }

    // MARK: Encoding

    @Test func roundTripsLossyKeepingSizeWithSmallError() throws {
        try #require(AVIFCoder().canEncode(to: .avif))
        #expect(AVIFCoder().canEncode(to: .heic) == false)
        let pixels = try Self.card()
        var options = ImageCoderOptions()
        options.compressionQuality = 0.8
        let data = try AVIFCoder().encode(Image(pixels: pixels, hasAlpha: false), as: .avif, options: options)
        #expect(ImageFormat(sniffing: data) == .avif)
        let decoded = try AVIFCoder().decode(data, options: ImageCoderOptions())
        #expect(decoded.size == pixels.size)
        #expect(decoded.hasAlpha == false)
        #expect(Self.meanError(decoded.pixels, pixels) < 6)
    }

    @Test func encodesLosslesslyExactly() throws {
        try #require(AVIFCoder().canEncode(to: .avif))
        let pixels = try Self.card { x, y in UInt8((x * 5 + y * 3) % 256) }
        var options = ImageCoderOptions()
        options.lossless = true
        let data = try AVIFCoder().encode(Image(pixels: pixels), as: .avif, options: options)
        let decoded = try AVIFCoder().decode(data, options: ImageCoderOptions())
        #expect(decoded.hasAlpha)
        #expect(decoded.pixels == pixels)
    }

    @Test func lowerQualityGivesSmallerFilesAndMaxFileSizeIsMet() throws {
        try #require(AVIFCoder().canEncode(to: .avif))
        let image = Image(pixels: try Self.card(), hasAlpha: false)
        var options = ImageCoderOptions()
        options.compressionQuality = 0.9
        let high = try AVIFCoder().encode(image, as: .avif, options: options)
        options.compressionQuality = 0.2
        let low = try AVIFCoder().encode(image, as: .avif, options: options)
        #expect(low.count < high.count)
        options.compressionQuality = 1
        options.maxFileSize = (low.count + high.count) / 2
        let fitted = try AVIFCoder().encode(image, as: .avif, options: options)
        #expect(fitted.count <= (low.count + high.count) / 2)
    }

    @Test func encodesSequencesAndHonoursMaxPixelSize() throws {
        try #require(AVIFCoder().canEncode(to: .avif))
        let frames = try [0.1, 0.25].map { ImageFrame(pixels: try Self.card(), duration: $0) }
        var options = ImageCoderOptions()
        options.compressionQuality = 0.7
        options.maxPixelSize = ImageSize(width: 24, height: 24)
        let data = try AVIFCoder().encode(Image(frames: frames, hasAlpha: false), as: .avif, options: options)
        let decoded = try AVIFCoder().decode(data, options: ImageCoderOptions())
        #expect(decoded.frameCount == 2)
        #expect(decoded.size == ImageSize(width: 24, height: 16))
        #expect(decoded.frames.map(\.duration) == [0.1, 0.25])

        options.encodeFirstFrameOnly = true
        let still = try AVIFCoder().decode(AVIFCoder().encode(Image(frames: frames), as: .avif, options: options), options: ImageCoderOptions())
        #expect(still.frameCount == 1)
    }

    @Test func refusesOtherFormats() throws {
        #expect(throws: WebImageError.unsupportedFormat(.png)) {
            try AVIFCoder().encode(Image(pixels: PixelBuffer(width: 1, height: 1, filling: .white)), as: .png, options: ImageCoderOptions())
        }
    }
}
