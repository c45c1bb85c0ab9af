import Foundation
import Testing
@testable import WebImage

/// JXLCoder against libjxl's own tools and the files they were made from
/// (Fixtures/jxl/make_fixtures.py): lossless files decode to exactly their source's pixels,
/// an animation to the GIF it was made from, the HDR corpus file to what djxl renders
/// tone-mapped to a 203-nit display; encoding round-trips.
@Suite struct JXLCoderTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("jxl/\(name)"))
    }

    /// Pixels equal, except the colour under fully transparent pixels.
    static func samePixels(_ a: PixelBuffer, _ b: PixelBuffer) -> Bool {
        guard a.size == b.size else { return false }
        let x = a.bytes, y = b.bytes
        for i in stride(from: 0, to: x.count, by: 4) {
            let alpha = x[i + 3]
            guard alpha == y[i + 3] else { return false }
            if alpha != 0, x[i] != y[i] || x[i + 1] != y[i + 1] || x[i + 2] != y[i + 2] { return false }
        }
        return true
    }

    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        var squares = 0.0
        for (p, q) in zip(a.bytes, b.bytes) {
            let d = Double(Int(p) - Int(q))
            squares += d * d
        }
        return 10 * log10(255 * 255 / max(1e-9, squares / Double(a.bytes.count)))
    }

    @Test func decodesALosslessFileToItsSourcesPixels() throws {
        let data = try Self.fixture("lossless-alpha.jxl")
        #expect(CodersManager.shared.decoder(for: data) is JXLCoder)
        let image = try CodersManager.shared.decode(data)
        let source = try PNGCoder().decode(Corpus.data("TestImage.png"), options: ImageCoderOptions())
        #expect(image.format == .jpegXL)
        #expect(image.size == ImageSize(width: 300, height: 300))
        #expect(image.hasAlpha)
        #expect(image.frameCount == 1)
        #expect(Self.samePixels(image.pixels, source.pixels))
    }

    /// PQ at 2182 nits, tone-mapped by libjxl to 203 nits in sRGB: what djxl gives with the
    /// same settings (within a level), not the dark, clipped picture of a plain decode.
    @Test func tonemapsTheHDRCorpusFileLikeDjxl() throws {
        let image = try CodersManager.shared.decode(Corpus.data("TestHDR.jxl"))
        let reference = try #require(try SampledReference.load("jxl")["TestHDR.jxl"])
        #expect(image.size == ImageSize(width: reference.width, height: reference.height))
        let difference = reference.difference(to: image.pixels)
        #expect(difference.max <= 3, "largest difference \(difference.max)")
        #expect(difference.mean <= 0.5)
    }

    /// A lossless grey file in linear light keeps its encoding inside; its pixels must
    /// reach sRGB through its own curve, as a grey PNG's gAMA does (they used to come out
    /// unconverted, too dark in the midtones).
    @Test func greyInLinearLightIsConvertedToSRGB() throws {
        let image = try JXLCoder().decode(Self.fixture("grey-linear.jxl"), options: ImageCoderOptions())
        #expect(image.size == ImageSize(width: 64, height: 16))
        for x in [0, 8, 32, 63] {
            let stored = Double(x * 4 + 3) / 255   // the gradient make_fixtures.py writes
            let srgb = stored <= 0.0031308 ? 12.92 * stored : 1.055 * pow(stored, 1 / 2.4) - 0.055
            let expected = Int((srgb * 255).rounded())
            let offset = (5 * 64 + x) * 4
            let pixel = image.pixels.bytes[offset..<offset + 3].map(Int.init)
            #expect(pixel.allSatisfy { abs($0 - expected) <= 2 }, "column \(x): \(pixel), expected \(expected)")
        }
        // Kept profiles are RGB only: a grey one is converted even when asked to keep.
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        let kept = try JXLCoder().decode(Self.fixture("grey-linear.jxl"), options: keep)
        #expect(kept.colorProfile == nil)
        #expect(kept.pixels == image.pixels)
    }

    @Test func decodesEveryFrameOfAnAnimationLikeTheGIFItCameFrom() throws {
        let image = try JXLCoder().decode(Self.fixture("animated.jxl"), options: ImageCoderOptions())
        let gif = try GIFCoder().decode(Corpus.data("TestImage.gif"), options: ImageCoderOptions())
        #expect(image.frameCount == 5)
        #expect(image.isAnimated)
        #expect(image.loopCount == 0)
        #expect(image.frames.map(\.duration) == gif.frames.map(\.duration))
        for (index, (ours, theirs)) in zip(image.frames, gif.frames).enumerated() {
            #expect(Self.samePixels(ours.pixels, theirs.pixels), "frame \(index)")
        }
        var first = ImageCoderOptions()
        first.decodeFirstFrameOnly = true
        #expect(try JXLCoder().decode(Self.fixture("animated.jxl"), options: first).frameCount == 1)
    }

    /// The first frame with the metadata (what the image server and `webimage info` ask
    /// for) runs on to the boxes after the codestream: the later frames are skipped, not
    /// decoded. A review found them decoded and dropped, uncounted by the limit, so a file
    /// of thousands of frames cost them all; with a limit of one and a half frames the
    /// second frame's decode was refused outright.
    @Test func theFirstFrameWithMetadataSkipsTheOtherFrames() throws {
        var options = ImageCoderOptions()
        options.decodeFirstFrameOnly = true
        options.readsMetadata = true
        options.pixelLimit = 50 * 50 * 3 / 2
        let image = try JXLCoder().decode(Self.fixture("animated.jxl"), options: options)
        #expect(image.frameCount == 1)
        let all = try JXLCoder().decode(Self.fixture("animated.jxl"), options: ImageCoderOptions())
        #expect(Self.samePixels(image.pixels, all.frames[0].pixels))
    }

    @Test func thumbnailsFitTheBox() throws {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 150, height: 150)
        let image = try JXLCoder().decode(Corpus.data("TestHDR.jxl"), options: options)
        #expect(image.size == ImageSize(width: 150, height: 105))
        #expect(image.isThumbnail)
    }

    /// The header's size, and all frames together, against the pixel limit.
    @Test func refusesImagesAndAnimationsBeyondThePixelLimit() throws {
        var options = ImageCoderOptions()
        options.pixelLimit = 10_000
        #expect(throws: WebImageError.imageTooLarge(width: 600, height: 420, limit: 10_000)) {
            try JXLCoder().decode(Corpus.data("TestHDR.jxl"), options: options)
        }
        options.pixelLimit = 50 * 50 * 3
        #expect(throws: WebImageError.imageTooLarge(width: 50, height: 50, limit: 50 * 50 * 3)) {
            try JXLCoder().decode(Self.fixture("animated.jxl"), options: options)
        }
    }

    /// A bare codestream whose header (a SizeHeader, then default metadata) declares
    /// `width` × `height`, followed by zeros: enough for libjxl to report the size, and
    /// nothing to decode after it.
    static func codestreamClaiming(width: Int, height: Int) -> Data {
        var bits: [UInt8] = []
        func put(_ value: Int, _ count: Int) {
            for bit in 0..<count { bits.append(UInt8(value >> bit & 1)) }
        }
        put(0, 1)                            // not a multiple-of-8 size
        put(2, 2); put(height - 1, 18)       // U32 selector 2: 18 bits
        put(0, 3)                            // no aspect ratio: the width follows
        put(2, 2); put(width - 1, 18)
        put(1, 1)                            // all_default metadata
        var bytes: [UInt8] = [0xFF, 0x0A]
        for (index, bit) in bits.enumerated() {
            if index % 8 == 0 { bytes.append(0) }
            bytes[bytes.count - 1] |= bit << UInt8(index % 8)
        }
        return Data(bytes + [UInt8](repeating: 0, count: 64))
    }

    @Test func losslessEncodingRoundTripsExactly() throws {
        let source = try PNGCoder().decode(Corpus.data("TestImage.png"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.lossless = true
        let data = try CodersManager.shared.encode(source, as: .jpegXL, options: options)
        #expect(ImageFormat(sniffing: data) == .jpegXL)
        let back = try JXLCoder().decode(data, options: ImageCoderOptions())
        #expect(Self.samePixels(back.pixels, source.pixels))
    }

    /// Quality 0.9 (libjxl's default distance 1) stays close to the source; a lower quality
    /// gives a smaller file.
    @Test func lossyEncodingFollowsTheQuality() throws {
        let source = try PNGCoder().decode(Corpus.data("TestImage.png"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.compressionQuality = 0.9
        let good = try JXLCoder().encode(source, as: .jpegXL, options: options)
        options.compressionQuality = 0.3
        let poor = try JXLCoder().encode(source, as: .jpegXL, options: options)
        #expect(poor.count < good.count)
        let back = try JXLCoder().decode(good, options: ImageCoderOptions())
        #expect(Self.psnr(back.pixels.flattened(onto: .white), source.pixels.flattened(onto: .white)) >= 30)
    }

    @Test func animationsRoundTripWithTheirTimingAndLoops() throws {
        let gif = try GIFCoder().decode(Corpus.data("TestImage.gif"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.lossless = true
        let back = try JXLCoder().decode(JXLCoder().encode(gif, as: .jpegXL, options: options), options: ImageCoderOptions())
        #expect(back.frameCount == gif.frameCount)
        #expect(back.loopCount == gif.loopCount)
        #expect(back.frames.map(\.duration) == gif.frames.map(\.duration))
        for (ours, theirs) in zip(back.frames, gif.frames) {
            #expect(Self.samePixels(ours.pixels, theirs.pixels))
        }
    }

    /// A metadata box larger than any kept block (1 MiB) is skipped, not read into a buffer
    /// that grows with the file: the decode ends, without that block, and keeps the next one.
    @Test func anOversizedMetadataBoxIsSkipped() throws {
        let pixels = PixelBuffer(width: 8, height: 8, filling: .white)
        var huge = Data("II*\u{0}".utf8) + Data([8, 0, 0, 0])
        huge += Data(repeating: 0x41, count: ImageMetadata.maximumBlockSize * 2)
        let xmp = Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        let image = Image(frames: [ImageFrame(pixels: pixels)], hasAlpha: false, metadata: ImageMetadata(exif: huge, xmp: xmp))
        var options = ImageCoderOptions()
        options.metadataPolicy = .all
        let encoded = try JXLCoder().encode(image, as: .jpegXL, options: options)
        #expect(encoded.count > ImageMetadata.maximumBlockSize * 2)   // the box was written
        var read = ImageCoderOptions()
        read.readsMetadata = true
        let decoded = try JXLCoder().decode(encoded, options: read)
        #expect(decoded.metadata.exif == nil)
        #expect(decoded.metadata.xmp == xmp)
    }
}
