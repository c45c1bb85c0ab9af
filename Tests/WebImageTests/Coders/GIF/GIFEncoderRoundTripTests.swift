import Foundation
import Testing
@testable import WebImage

/// The corpus's animations (GIF, APNG, animated WebP) encoded as GIF and decoded again
/// with our decoder: frame count, durations and loop count survive, and so do the pixels
/// (exactly when all frames together have at most 256 colours).
@Suite struct GIFEncoderRoundTripTests {
    struct Case: CustomStringConvertible, Sendable {
        let name: String
        let frames: Int
        let loopCount: Int
        /// Whether every frame's colours fit one palette, so that pixels must come back exactly.
        let exact: Bool
        /// Keep only this centre square of every frame, to keep the debug run short.
        var crop: Int?
        var description: String { name }
    }

    static let cases = [
        Case(name: "1@2x.gif", frames: 44, loopCount: 65535, exact: true),
        Case(name: "TestImage.gif", frames: 5, loopCount: 0, exact: true),
        Case(name: "TestLoopCount.gif", frames: 2, loopCount: 1, exact: true),
        Case(name: "TestImageAnimated.apng", frames: 101, loopCount: 0, exact: true),
        Case(name: "TestImageAnimated.webp", frames: 8, loopCount: 0, exact: true, crop: 320),
        Case(name: "TestAnimatedImageMemory.webp", frames: 16, loopCount: 0, exact: false, crop: 240),
    ]

    static func decode(_ name: String, crop: Int? = nil) throws -> Image {
        let data = try Corpus.data(name)
        let image: Image
        switch ImageFormat(sniffing: data) {
        case .gif: image = try GIFCoder().decode(data, options: ImageCoderOptions())
        case .png: image = try PNGCoder().decode(data, options: ImageCoderOptions())
        default: image = try WebPCoder().decode(data, options: ImageCoderOptions())
        }
        guard let crop else { return image }
        let frames = try image.frames.map { frame in
            let pixels = frame.pixels
            let left = (pixels.width - crop) / 2, top = (pixels.height - crop) / 2
            var bytes: [UInt8] = []
            bytes.reserveCapacity(crop * crop * 4)
            for y in top..<top + crop {
                let start = (y * pixels.width + left) * 4
                bytes.append(contentsOf: pixels.bytes[start..<start + crop * 4])
            }
            return ImageFrame(pixels: try PixelBuffer(width: crop, height: crop, bytes: bytes), duration: frame.duration)
        }
        return Image(frames: frames, loopCount: image.loopCount)
    }

    /// What a GIF can hold of `pixels`: alpha below 128 clear, the rest opaque.
    static func thresholded(_ pixels: PixelBuffer) -> PixelBuffer {
        var out = pixels
        for i in stride(from: 0, to: out.bytes.count, by: 4) {
            if out.bytes[i + 3] < ColorQuantizer.alphaThreshold {
                out.bytes.replaceSubrange(i..<i + 4, with: [0, 0, 0, 0])
            } else {
                out.bytes[i + 3] = 255
            }
        }
        return out
    }

    @Test(arguments: cases)
    func animationKeepsFramesDurationsLoopCountAndPixels(_ testCase: Case) throws {
        let source = try Self.decode(testCase.name, crop: testCase.crop)
        #expect(source.frameCount == testCase.frames && source.loopCount == testCase.loopCount)
        var options = ImageCoderOptions()
        options.paletteDithering = false
        let data = try GIFCoder().encode(source, as: .gif, options: options)
        let decoded = try GIFCoder().decode(data, options: ImageCoderOptions())
        #expect(decoded.frameCount == testCase.frames)
        #expect(decoded.loopCount == testCase.loopCount)
        #expect(decoded.size == source.size)
        for (index, (got, want)) in zip(decoded.frames, source.frames).enumerated() {
            #expect(abs(got.duration - GIFEncoderFixtures.decodedDuration(want.duration)) < 1e-9, "frame \(index)")
            #expect(abs(got.duration - want.duration) <= 0.01 || want.duration < 0.015, "frame \(index)")
            let expected = Self.thresholded(want.pixels)
            if testCase.exact {
                #expect(got.pixels == expected, "frame \(index)")
            } else {
                let error = GIFEncoderFixtures.meanAbsoluteDifference(got.pixels, expected)
                #expect(error <= 6, "frame \(index): mean abs diff \(error)")
            }
        }
    }

    @Test func reencodingAQuantisedGIFIsLossless() throws {
        // The first encode quantises and dithers a photo-like animation to one palette,
        // so the second finds every colour fits and must change nothing.
        let first = try GIFCoder().decode(
            GIFCoder().encode(Self.decode("TestAnimatedImageMemory.webp", crop: 240), as: .gif, options: ImageCoderOptions()),
            options: ImageCoderOptions())
        let data = try GIFCoder().encode(first, as: .gif, options: ImageCoderOptions())
        let second = try GIFCoder().decode(data, options: ImageCoderOptions())
        #expect(second.frames == first.frames)
        #expect(second.loopCount == first.loopCount)
    }

    @Test func croppingFramesMakesTheCorpusGIFSmallerThanFullFrames() throws {
        // 1@2x.gif's frames change in part; whole-canvas frames would repeat the rest 44 times.
        let source = try Self.decode("1@2x.gif")
        let data = try GIFCoder().encode(source, as: .gif, options: ImageCoderOptions())
        let stills = try source.frames.prefix(4).map {
            try GIFCoder().encode(Image(pixels: $0.pixels), as: .gif, options: ImageCoderOptions()).count
        }
        let wholeFrames = Double(stills.reduce(0, +)) / Double(stills.count) * Double(source.frameCount)
        #expect(Double(data.count) < wholeFrames * 0.8, "\(data.count) bytes against about \(Int(wholeFrames)) for whole frames")
    }
}
