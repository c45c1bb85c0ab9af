import Foundation
import Testing
@testable import WebImage

/// GIFCoder's encoder on synthetic images, checked by decoding with our GIF decoder
/// (pixels, frames, durations, loop count) and by reading the written records.
@Suite struct GIFEncoderTests {
    let coder = GIFCoder()

    func roundTrip(_ image: Image, options: ImageCoderOptions = ImageCoderOptions()) throws -> (Data, Image) {
        let data = try coder.encode(image, as: .gif, options: options)
        #expect(ImageFormat(sniffing: data) == .gif)
        #expect(data.starts(with: Array("GIF89a".utf8)))
        return (data, try coder.decode(data, options: ImageCoderOptions()))
    }

    /// The image descriptors and graphic control blocks of a GIF, in order.
    func records(_ data: Data) throws -> (images: [GIFImageDescriptor], controls: [[UInt8]], applications: [[[UInt8]]]) {
        try data.withUnsafeBytes { bytes in
            try GIFReader.read(bytes) { reader in
                var images: [GIFImageDescriptor] = [], controls: [[UInt8]] = [], applications: [[[UInt8]]] = []
                while true {
                    switch try reader.nextRecord() {
                    case .image(let image):
                        images.append(image)
                        try reader.skipPixels()
                    case .extension(0xF9, let blocks): controls.append(blocks.first ?? [])
                    case .extension(0xFF, let blocks): applications.append(blocks)
                    case .extension: break
                    case .end: return (images, controls, applications)
                    }
                }
            }
        }
    }

    @Test func encodesGIFOnly() throws {
        #expect(coder.canEncode(to: .gif))
        #expect(!coder.canEncode(to: .png))
        let image = Image(pixels: PixelBuffer(width: 1, height: 1, filling: .white))
        #expect(throws: WebImageError.unsupportedFormat(.png)) { try coder.encode(image, as: .png, options: ImageCoderOptions()) }
    }

    @Test(arguments: [1, 2, 17, 200, 256])
    func stillImageWithAtMost256ColoursRoundTripsExactly(colors: Int) throws {
        let pixels = GIFEncoderFixtures.pattern(width: 37, height: 23, colors: colors)
        let (data, decoded) = try roundTrip(Image(pixels: pixels))
        #expect(decoded.pixels == pixels)
        #expect(decoded.frameCount == 1)
        #expect(!decoded.hasAlpha)
        let written = try records(data)
        #expect(written.applications.isEmpty, "a still image has no loop extension")
        #expect(written.controls.isEmpty, "an opaque still image needs no graphic control")
    }

    @Test func oneByOneAndSingleColourImagesRoundTrip() throws {
        for color in [RGBAColor.white, .black, RGBAColor(red: 12, green: 200, blue: 99), .clear] {
            for size in [(1, 1), (1, 7), (9, 1), (50, 40)] {
                let pixels = PixelBuffer(width: size.0, height: size.1, filling: color)
                let (_, decoded) = try roundTrip(Image(pixels: pixels))
                #expect(decoded.pixels == pixels, "\(color) \(size)")
                #expect(decoded.hasAlpha == (color.alpha == 0))
            }
        }
    }

    @Test func transparentPixelsStayTransparentAndHalfAlphaIsOpaque() throws {
        var pixels = GIFEncoderFixtures.pattern(width: 20, height: 10, colors: 50)
        for x in 0..<20 { pixels[pixel: x, 3] = RGBAColor(red: 255, green: 0, blue: 0, alpha: UInt8(x * 6)) }
        let (data, decoded) = try roundTrip(Image(pixels: pixels))
        #expect(decoded.hasAlpha)
        for x in 0..<20 {
            let alpha = x * 6
            let expected = alpha < 128 ? RGBAColor.clear : RGBAColor(red: 255, green: 0, blue: 0)
            #expect(decoded.pixels[pixel: x, 3] == expected, "alpha \(alpha)")
        }
        #expect(decoded.pixels[pixel: 5, 5] == pixels[pixel: 5, 5])
        let control = try #require(try records(data).controls.first)
        #expect(control[0] & 1 == 1, "the transparency flag is set")
    }

    @Test(arguments: [0, 1, 3])
    func animationKeepsFramesDurationsLoopCountAndPixels(loopCount: Int) throws {
        let durations = [0.1, 0.2, 0.35, 1.5, 0.04]
        let frames = durations.enumerated().map { index, duration in
            ImageFrame(pixels: GIFEncoderFixtures.movingSquare(frame: index), duration: duration)
        }
        let image = Image(frames: frames, loopCount: loopCount)
        let (data, decoded) = try roundTrip(image)
        #expect(decoded.frameCount == frames.count)
        #expect(decoded.loopCount == loopCount)
        for (got, want) in zip(decoded.frames, frames) {
            #expect(abs(got.duration - want.duration) < 0.01 + 1e-9)
            #expect(got.pixels == want.pixels)
        }
        let written = try records(data)
        #expect(written.applications.isEmpty == (loopCount == 1),
                "NETSCAPE2.0 only when the loop count is not 1, the meaning of a file without it")
        // Frames after the first are cropped to the square's old and new places.
        #expect(written.images[0].width == 48 && written.images[0].height == 32)
        for image in written.images.dropFirst() {
            #expect(image.width <= 14 && image.height <= 10, "\(image.width)x\(image.height)")
        }
    }

    @Test func pixelsTurningTransparentAreClearedByTheFrameBefore() throws {
        // Frame 1 punches a hole where frame 0 had colour; frame 2 fills it again and
        // makes another one; frame 3 is fully transparent.
        let base = GIFEncoderFixtures.pattern(width: 24, height: 16, colors: 30)
        var holed = base
        for y in 4..<9 { for x in 3..<11 { holed[pixel: x, y] = .clear } }
        var other = base
        for y in 10..<14 { for x in 15..<22 { other[pixel: x, y] = .clear } }
        let clear = PixelBuffer(width: 24, height: 16, filling: .clear)
        let frames = [base, holed, other, clear, base].map { ImageFrame(pixels: $0, duration: 0.1) }
        let (data, decoded) = try roundTrip(Image(frames: frames, loopCount: 0))
        #expect(decoded.frames.map(\.pixels) == frames.map(\.pixels))
        let disposals = try records(data).controls.map { Int($0[0] >> 2) & 7 }
        #expect(disposals == [2, 2, 2, 1, 1])
    }

    @Test func identicalFramesAreKeptAsFramesOfOnePixel() throws {
        let pixels = GIFEncoderFixtures.pattern(width: 30, height: 20, colors: 40)
        let frames = [ImageFrame](repeating: ImageFrame(pixels: pixels, duration: 0.25), count: 4)
        let (data, decoded) = try roundTrip(Image(frames: frames, loopCount: 0))
        #expect(decoded.frameCount == 4)
        #expect(decoded.frames.allSatisfy { $0.pixels == pixels && $0.duration == 0.25 })
        #expect(try records(data).images.dropFirst().allSatisfy { $0.width == 1 && $0.height == 1 })
    }

    @Test func photoIsCloseWithoutDitheringAndDitheringKeepsItClose() throws {
        let photo = try GIFEncoderFixtures.photo()
        var plain = ImageCoderOptions()
        plain.paletteDithering = false
        let (plainData, undithered) = try roundTrip(Image(pixels: photo), options: plain)
        let (ditheredData, dithered) = try roundTrip(Image(pixels: photo))
        let plainError = GIFEncoderFixtures.meanAbsoluteDifference(undithered.pixels, photo)
        let ditheredError = GIFEncoderFixtures.meanAbsoluteDifference(dithered.pixels, photo)
        #expect(plainError <= 6, "mean abs diff \(plainError) without dithering")
        #expect(ditheredError <= 9, "mean abs diff \(ditheredError) with dithering")
        #expect(plainData != ditheredData)
        // Averaged over 8×8 blocks, dithering is closer to the photo than plain mapping.
        #expect(GIFEncoderFixtures.blockError(dithered.pixels, photo) < GIFEncoderFixtures.blockError(undithered.pixels, photo))
    }

    @Test func sidesBeyondGIFsSixteenBitLimitAreAnEncodingError() throws {
        let wide = Image(pixels: PixelBuffer(width: 65536, height: 1, filling: .white))
        #expect {
            try coder.encode(wide, as: .gif, options: ImageCoderOptions())
        } throws: { error in
            guard case WebImageError.encodingFailed = error else { return false }
            return true
        }
        let tall = Image(pixels: PixelBuffer(width: 1, height: 65536, filling: .white))
        #expect(throws: WebImageError.self) { try coder.encode(tall, as: .gif, options: ImageCoderOptions()) }
        let widest = PixelBuffer(width: 65535, height: 1, filling: .black)
        #expect(try roundTrip(Image(pixels: widest)).1.pixels == widest)
    }

    @Test func framesOfDifferentSizesAreAnEncodingError() throws {
        let image = Image(frames: [
            ImageFrame(pixels: PixelBuffer(width: 2, height: 2, filling: .white), duration: 0.1),
            ImageFrame(pixels: PixelBuffer(width: 3, height: 2, filling: .white), duration: 0.1),
        ])
        #expect(throws: WebImageError.encodingFailed("GIF: frames differ in size")) {
            try coder.encode(image, as: .gif, options: ImageCoderOptions())
        }
    }

    @Test func encodeFirstFrameOnlyAndMaxPixelSizeAreHonoured() throws {
        let frames = (0..<3).map { ImageFrame(pixels: GIFEncoderFixtures.movingSquare(frame: $0), duration: 0.1) }
        var options = ImageCoderOptions()
        options.encodeFirstFrameOnly = true
        let (data, still) = try roundTrip(Image(frames: frames, loopCount: 0), options: options)
        #expect(still.frameCount == 1)
        #expect(still.pixels == frames[0].pixels)
        #expect(try records(data).applications.isEmpty)
        options = ImageCoderOptions()
        options.maxPixelSize = ImageSize(width: 24, height: 24)
        let (_, small) = try roundTrip(Image(frames: frames, loopCount: 2), options: options)
        #expect(small.size == ImageSize(width: 24, height: 16))
        #expect(small.frameCount == 3 && small.loopCount == 2)
    }

    @Test func maxFileSizeIsMetWithAFewerColouredPalette() throws {
        let photo = try GIFEncoderFixtures.photo()
        var options = ImageCoderOptions()
        options.paletteDithering = false
        let full = try coder.encode(Image(pixels: photo), as: .gif, options: options)
        options.maxFileSize = full.count * 2 / 3
        let fitted = try coder.encode(Image(pixels: photo), as: .gif, options: options)
        #expect(fitted.count <= full.count * 2 / 3)
        let decoded = try coder.decode(fitted, options: ImageCoderOptions())
        #expect(GIFEncoderFixtures.meanAbsoluteDifference(decoded.pixels, photo) < 20)
        // Quality alone picks the palette size too: 0 leaves two colours.
        options.maxFileSize = nil
        options.compressionQuality = 0
        let twoColours = try coder.decode(try coder.encode(Image(pixels: photo), as: .gif, options: options), options: ImageCoderOptions())
        let distinct = Set(stride(from: 0, to: twoColours.pixels.bytes.count, by: 4).map { twoColours.pixels.bytes[$0..<$0 + 3] })
        #expect(distinct.count == 2)
    }

    @Test func shortDurationsComeBackAsTheDecoderShowsThem() throws {
        let durations = [0, 0.004, 0.012, 0.016, 0.099, 0.123, 655.35, 1000]
        let frames = durations.enumerated().map { ImageFrame(pixels: GIFEncoderFixtures.movingSquare(frame: $0), duration: $1) }
        let (_, decoded) = try roundTrip(Image(frames: frames, loopCount: 0))
        // A positive duration is written as at least 2 hundredths: 1 would play as 0.1 s.
        let expected = durations.map { GIFEncoderFixtures.decodedDuration($0 > 0 ? max(0.02, min($0, 655.35)) : 0) }
        for (got, want) in zip(decoded.frames.map(\.duration), expected) {
            #expect(abs(got - want) < 1e-9, "\(got) vs \(want)")
        }
    }

    /// A review's finding: a 12-ms frame became a delay of 1, which browsers play as
    /// 100 ms. Durations go through every encoder's one clamp.
    @Test func delaysBrowsersWouldSlowDownAreRaisedToTheShortestTheyHonour() {
        #expect(GIFEncoder.delay(of: 0) == 0)
        #expect(GIFEncoder.delay(of: .nan) == 0)
        #expect(GIFEncoder.delay(of: 0.004) == 2)
        #expect(GIFEncoder.delay(of: 0.012) == 2)
        #expect(GIFEncoder.delay(of: 0.1) == 10)
        #expect(GIFEncoder.delay(of: .infinity) == 0)
        #expect(GIFEncoder.delay(of: 1e30) == 65_535)
    }

    /// A stride that divides the width sampled the same columns of every row; the step
    /// used shares no factor with the width.
    @Test func paletteSamplingVisitsEveryColumn() {
        typealias Histogram = ColorQuantizer.WuHistogram
        #expect(Histogram.sampling(32, width: 256) == 33)
        #expect(Histogram.sampling(1, width: 256) == 1)
        #expect(Histogram.sampling(6, width: 35) == 6)
        let step = Histogram.sampling(32, width: 256)
        #expect(Set((0..<256).map { $0 * step % 256 }).count == 256)
    }
}
