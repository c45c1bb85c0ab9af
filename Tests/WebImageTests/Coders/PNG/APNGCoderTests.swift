import Foundation
import Testing
@testable import WebImage

@Suite struct APNGCoderTests {
    let coder = PNGCoder()

    static let animations = [
        "corpus/TestImageLarge.png", "corpus/TestImageAnimated.apng",
        "dispose_none_over.png", "dispose_background_over.png", "dispose_previous_over.png", "dispose_none_source.png",
    ]

    /// Pillow's duration in ms, with SDWebImage's rule that delays under 11 ms play as 100 ms.
    static func expectedDuration(_ milliseconds: Double) -> Double {
        milliseconds < 11 ? 0.1 : milliseconds / 1000
    }

    @Test(arguments: animations)
    func compositesEveryFrameExactlyLikePillow(_ name: String) throws {
        let reference = try #require(PNGReference.all[name])
        let image = try coder.decode(try PNGReference.data(name), options: ImageCoderOptions())
        reference.expectMatches(image, name)
        #expect(image.isAnimated)
        #expect(image.loopCount == reference.loop)
        for (frame, expected) in zip(image.frames, reference.frames) {
            #expect(abs(frame.duration - APNGCoderTests.expectedDuration(expected.durationMilliseconds)) < 1e-9, "\(name)")
        }
    }

    @Test func readsTheCorpusAnimationsMetadata() throws {
        let large = try coder.decode(Corpus.data("TestImageLarge.png"), options: ImageCoderOptions())
        #expect(large.frameCount == 4)
        #expect(large.size == ImageSize(width: 1275, height: 720))
        #expect(large.loopCount == 0)
        #expect(large.frames.allSatisfy { $0.duration == 0.1 })
        #expect(large.hasAlpha)

        let animated = try coder.decode(Corpus.data("TestImageAnimated.apng"), options: ImageCoderOptions())
        #expect(animated.frameCount == 101)
        #expect(animated.size == ImageSize(width: 320, height: 240))
        #expect(animated.frames.allSatisfy { abs($0.duration - 0.03) < 1e-9 })
        #expect(animated.hasAlpha)
    }

    @Test func decodeFirstFrameOnlyReturnsTheDefaultImage() throws {
        var options = ImageCoderOptions()
        options.decodeFirstFrameOnly = true
        let first = try coder.decode(Corpus.data("TestImageLarge.png"), options: options)
        let all = try coder.decode(Corpus.data("TestImageLarge.png"), options: ImageCoderOptions())
        #expect(!first.isAnimated)
        #expect(first.loopCount == 1)
        #expect(first.pixels == all.pixels)
    }

    @Test func hiddenDefaultImageIsNotAFrameButIsTheFirstFrameOnlyResult() throws {
        // An APNG whose IDAT image (red) is not part of the two-frame animation (green, blue).
        let red = PixelBuffer(width: 4, height: 3, filling: RGBAColor(red: 255, green: 0, blue: 0))
        let green = PixelBuffer(width: 4, height: 3, filling: RGBAColor(red: 0, green: 255, blue: 0))
        let blue = PixelBuffer(width: 2, height: 2, filling: RGBAColor(red: 0, green: 0, blue: 255))
        let data = try APNGTestFile.build(defaultImage: red, frames: [
            .init(pixels: green, x: 0, y: 0), .init(pixels: blue, x: 1, y: 1),
        ])
        let animation = try coder.decode(data, options: ImageCoderOptions())
        #expect(animation.frameCount == 2)
        #expect(animation.pixels == green)
        #expect(animation.frames[1].pixels[pixel: 1, 1] == RGBAColor(red: 0, green: 0, blue: 255))
        #expect(animation.frames[1].pixels[pixel: 0, 0] == RGBAColor(red: 0, green: 255, blue: 0))

        var options = ImageCoderOptions()
        options.decodeFirstFrameOnly = true
        #expect(try coder.decode(data, options: options).pixels == red)
    }

    @Test func blendsPartialAlphaOverWithPorterDuff() throws {
        let base = PixelBuffer(width: 1, height: 1, filling: RGBAColor(red: 200, green: 100, blue: 0, alpha: 128))
        let top = PixelBuffer(width: 1, height: 1, filling: RGBAColor(red: 0, green: 0, blue: 255, alpha: 64))
        let data = try APNGTestFile.build(frames: [.init(pixels: base), .init(pixels: top, blend: .over)])
        let image = try coder.decode(data, options: ImageCoderOptions())
        // outA = 64 + 128 * 191 / 255 = 159.9; colour = (src * 64*255 + dst * 128*191) / (64*255 + 128*191).
        #expect(image.frames[1].pixels[pixel: 0, 0] == RGBAColor(red: 120, green: 60, blue: 102, alpha: 160))
    }

    @Test func disposesToBackgroundAndToPrevious() throws {
        let white = PixelBuffer(width: 3, height: 1, filling: .white)
        let black = PixelBuffer(width: 1, height: 1, filling: .black)
        let data = try APNGTestFile.build(frames: [
            .init(pixels: white),
            .init(pixels: black, x: 0, dispose: .previous),
            .init(pixels: black, x: 1, dispose: .background),
            .init(pixels: black, x: 2),
        ])
        let frames = try coder.decode(data, options: ImageCoderOptions()).frames
        let row = frames.map { frame in (0..<3).map { frame.pixels[pixel: $0, 0] } }
        #expect(row[1] == [.black, .white, .white])
        #expect(row[2] == [.white, .black, .white])   // frame 1 restored what was before it
        #expect(row[3] == [.white, .clear, .black])   // frame 2 cleared its rectangle
    }

    @Test func thumbnailAppliesToEveryFrame() throws {
        let data = try PNGReference.data("dispose_previous_over.png")
        let full = try coder.decode(data, options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 12, height: 12)
        let image = try coder.decode(data, options: options)
        #expect(image.frameCount == 5)
        #expect(image.frames.allSatisfy { $0.pixels.size == ImageSize(width: 12, height: 9) })
        #expect(image.frames.map(\.duration) == full.frames.map(\.duration))
        #expect(image.frames[3].pixels == full.frames[3].pixels.resized(to: ImageSize(width: 12, height: 9)))
        #expect(image.isThumbnail)
    }

    @Test func scaleDownCountsEveryFrame() throws {
        var options = ImageCoderOptions()
        options.scaleDownLimitBytes = 4 * 5 * 100   // five frames of at most 100 pixels
        let image = try coder.decode(try PNGReference.data("dispose_none_over.png"), options: options)
        #expect(image.frameCount == 5)
        // 24x18 scaled by sqrt(100 / 432), rounded down: 11x8.
        #expect(image.frames.allSatisfy { $0.pixels.size == ImageSize(width: 11, height: 8) })
        #expect(image.isThumbnail)
    }

    @Test func refusesAnimationsWhoseFramesTogetherExceedThePixelLimit() throws {
        var options = ImageCoderOptions()
        options.pixelLimit = 320 * 240 * 100   // the canvas fits, 101 frames do not
        #expect(throws: WebImageError.self) { try coder.decode(Corpus.data("TestImageAnimated.apng"), options: options) }
        do {
            _ = try coder.decode(Corpus.data("TestImageAnimated.apng"), options: options)
        } catch let error as WebImageError {
            guard case .imageTooLarge = error else { Issue.record("expected imageTooLarge, got \(error)"); return }
        }
        options.decodeFirstFrameOnly = true
        #expect(try coder.decode(Corpus.data("TestImageAnimated.apng"), options: options).frameCount == 1)
    }

    @Test func refusesAFrameOutsideTheCanvas() throws {
        let pixel = PixelBuffer(width: 2, height: 2, filling: .white)
        let data = try APNGTestFile.build(canvas: ImageSize(width: 2, height: 2), frames: [
            .init(pixels: pixel), .init(pixels: pixel, x: 1, y: 0),
        ])
        #expect(throws: WebImageError.self) { try coder.decode(data, options: ImageCoderOptions()) }
    }

    @Test func refusesOutOfOrderSequenceNumbers() throws {
        let pixel = PixelBuffer(width: 1, height: 1, filling: .white)
        let data = try APNGTestFile.build(frames: [.init(pixels: pixel), .init(pixels: pixel)], sequenceOffset: 1)
        #expect(throws: WebImageError.self) { try coder.decode(data, options: ImageCoderOptions()) }
    }

    @Test func roundTripKeepsFramesDurationsAndLoopCount() throws {
        let source = try coder.decode(Corpus.data("TestImageAnimated.apng"), options: ImageCoderOptions())
        let frames = source.frames.prefix(12).enumerated().map { index, frame in
            ImageFrame(pixels: frame.pixels, duration: [0.03, 0.25, 1.5, 70.0][index % 4])
        }
        let image = Image(frames: Array(frames), format: .png, loopCount: 5)
        let data = try coder.encode(image, as: .png, options: ImageCoderOptions())
        let decoded = try coder.decode(data, options: ImageCoderOptions())
        #expect(decoded.frameCount == 12)
        #expect(decoded.loopCount == 5)
        #expect(decoded.frames.map(\.duration) == image.frames.map(\.duration))
        #expect(decoded.frames.map(\.pixels) == image.frames.map(\.pixels))
    }

    @Test func encodeFirstFrameOnlyWritesAStillPNG() throws {
        let source = try coder.decode(Corpus.data("TestImageLarge.png"), options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.encodeFirstFrameOnly = true
        let data = try coder.encode(source, as: .png, options: options)
        let decoded = try coder.decode(data, options: ImageCoderOptions())
        #expect(!decoded.isAnimated)
        #expect(decoded.pixels == source.pixels)
        #expect(!data.withUnsafeBytes { PNGChunksTestScan.types(in: $0) }.contains("acTL"))
    }
}

/// Lists chunk types, for asserting on what the encoder wrote.
enum PNGChunksTestScan {
    static func types(in bytes: UnsafeRawBufferPointer) -> [String] {
        guard let layout = try? PNGChunks.scan(bytes) else { return [] }
        return layout.chunks.map { chunk in
            String(decoding: bytes[chunk.payload.lowerBound - 4..<chunk.payload.lowerBound], as: UTF8.self)
        }
    }
}

/// Builds APNG files chunk by chunk from frames compressed by the coder's own encoder.
enum APNGTestFile {
    struct Frame {
        var pixels: PixelBuffer
        var x = 0
        var y = 0
        var dispose: APNGFrameControl.Dispose = .none
        var blend: APNGFrameControl.Blend = .source
    }

    /// The IDAT payloads of `pixels` encoded as an RGBA PNG (RGB when not `keepAlpha`).
    static func imageData(_ pixels: PixelBuffer, keepAlpha: Bool = true) throws -> [[UInt8]] {
        let png = try PNGEncoder.encode(pixels, keepAlpha: keepAlpha)
        return try png.withUnsafeBytes { bytes in
            try PNGChunks.scan(bytes).chunks.filter { $0.type == PNGChunks.IDAT }.map { Array(bytes[$0.payload]) }
        }
    }

    static func build(
        canvas: ImageSize? = nil,
        defaultImage: PixelBuffer? = nil,
        frames: [Frame],
        sequenceOffset: UInt32 = 0,
        rgb: Bool = false
    ) throws -> Data {
        let size = canvas ?? defaultImage?.size ?? frames[0].pixels.size
        var out = PNGChunks.signature
        var ihdr: [UInt8] = []
        PNGChunks.appendUInt32(UInt32(size.width), to: &ihdr)
        PNGChunks.appendUInt32(UInt32(size.height), to: &ihdr)
        ihdr += [8, rgb ? 2 : 6, 0, 0, 0]
        PNGChunks.append(type: PNGChunks.IHDR, payload: ihdr, to: &out)
        var actl: [UInt8] = []
        PNGChunks.appendUInt32(UInt32(frames.count), to: &actl)
        PNGChunks.appendUInt32(0, to: &actl)
        PNGChunks.append(type: PNGChunks.acTL, payload: actl, to: &out)
        var sequence: UInt32 = 0
        func control(_ frame: Frame) -> [UInt8] {
            var c = APNGFrameControl(sequence: sequence, size: frame.pixels.size, duration: 0.05)
            c.x = frame.x
            c.y = frame.y
            c.dispose = frame.dispose
            c.blend = frame.blend
            sequence += 1
            return c.payload
        }
        if let defaultImage {
            for data in try imageData(defaultImage, keepAlpha: !rgb) { PNGChunks.append(type: PNGChunks.IDAT, payload: data, to: &out) }
        }
        for (index, frame) in frames.enumerated() {
            PNGChunks.append(type: PNGChunks.fcTL, payload: control(frame), to: &out)
            if index == 0 { sequence += sequenceOffset }
            for data in try imageData(frame.pixels, keepAlpha: !rgb) {
                if index == 0 && defaultImage == nil {
                    PNGChunks.append(type: PNGChunks.IDAT, payload: data, to: &out)
                } else {
                    var fdat: [UInt8] = []
                    PNGChunks.appendUInt32(sequence, to: &fdat)
                    sequence += 1
                    PNGChunks.append(type: PNGChunks.fdAT, payload: fdat + data, to: &out)
                }
            }
        }
        PNGChunks.append(type: PNGChunks.IEND, payload: [], to: &out)
        return Data(out)
    }
}
