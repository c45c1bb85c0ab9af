import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// The processor alone on corpus and synthetic bytes: the decoder options it derives, the
/// limits it enforces (each with its status), the format it falls back to, and the steps
/// it applies.
@Suite struct ImageProcessorTests {
    let processor = ImageProcessor()

    static func options(_ change: (inout ProcessingOptions) -> Void) -> ProcessingOptions {
        var options = ProcessingOptions()
        change(&options)
        return options
    }

    /// The status `body` fails with; `nil` when it succeeds, -1 for an error that is not an
    /// ``ImageServerError`` (the processor promises only those).
    static func status(_ body: () throws -> Void) -> Int? {
        do {
            try body()
            return nil
        } catch {
            return (error as? ImageServerError)?.status ?? -1
        }
    }

    // MARK: Decoder options

    @Test func decodeOptionsAskForTheBoxAndCoverItForCroppingTypes() {
        let fit = processor.decodeOptions(for: Self.options { $0.width = 300; $0.height = 200 }, keepsAnimation: false)
        #expect(fit.thumbnailPixelSize == ImageSize(width: 300, height: 200))
        #expect(!fit.thumbnailCoversBox)
        #expect(fit.preserveAspectRatio)
        #expect(fit.decodeFirstFrameOnly)
        #expect(fit.pixelLimit == 50_000_000)
        #expect(fit.applyOrientation)
        for type in [ProcessingOptions.ResizingType.fill, .fillDown, .auto] {
            let covering = processor.decodeOptions(for: Self.options { $0.resizingType = type; $0.width = 300; $0.height = 200 }, keepsAnimation: false)
            #expect(covering.thumbnailCoversBox, "\(type)")
        }
        let force = processor.decodeOptions(for: Self.options { $0.resizingType = .force; $0.width = 300; $0.height = 200 }, keepsAnimation: false)
        #expect(!force.preserveAspectRatio)
    }

    @Test func decodeOptionsSwapTheBoxForAQuarterTurnAndLeaveAnUnsetSideUnbounded() {
        let turned = processor.decodeOptions(for: Self.options { $0.width = 300; $0.height = 200; $0.rotate = 270 }, keepsAnimation: false)
        #expect(turned.thumbnailPixelSize == ImageSize(width: 200, height: 300))
        let widthOnly = processor.decodeOptions(for: Self.options { $0.width = 300; $0.dpr = 2 }, keepsAnimation: false)
        #expect(widthOnly.thumbnailPixelSize == ImageSize(width: 600, height: Int(Int32.max)))
    }

    @Test func decodeOptionsDecodeWholeWhenEnlargingOrWithoutABox() {
        #expect(processor.decodeOptions(for: Self.options { $0.width = 300; $0.enlarge = true }, keepsAnimation: false).thumbnailPixelSize == nil)
        #expect(processor.decodeOptions(for: ProcessingOptions(), keepsAnimation: false).thumbnailPixelSize == nil)
    }

    @Test func decodeOptionsKeepFramesForAnimationsAndPages() {
        #expect(!processor.decodeOptions(for: ProcessingOptions(), keepsAnimation: true).decodeFirstFrameOnly)
        #expect(!processor.decodeOptions(for: Self.options { $0.page = 2 }, keepsAnimation: false).decodeFirstFrameOnly)
        #expect(!processor.decodeOptions(for: Self.options { $0.autoRotate = false }, keepsAnimation: false).applyOrientation)
        #expect(processor.decodeOptions(for: Self.options { $0.autoRotate = false }, keepsAnimation: false, format: .heic).applyOrientation)
        #expect(ImageProcessor.keepsAnimation(.gif, ProcessingOptions()))
        #expect(ImageProcessor.keepsAnimation(.webp, ProcessingOptions()))
        #expect(!ImageProcessor.keepsAnimation(.png, ProcessingOptions()))
        #expect(!ImageProcessor.keepsAnimation(.gif, Self.options { $0.page = 0 }))
    }

    // MARK: Processing corpus bytes

    @Test func largeJPEGIsDecodedSmallAndResized() throws {
        let data = try Corpus.data("TestImageLarge.jpg")
        let output = try processor.process(data, options: Self.options { $0.width = 400 }, format: nil)
        #expect(output.format == .jpeg)
        let image = try CodersManager.shared.decode(output.data)
        // 5250×3450 fitted to 400 wide (decoded at an eighth by DCT scaling, per the
        // decoder options checked above).
        #expect(image.size == ImageSize(width: 400, height: 263))
    }

    /// Sizes are worked out from the source, as imgproxy works them out, not from the
    /// decoded image: a decode that shrinks on load rounds each side on its own. A review
    /// found, against imgproxy's `calcScale` and `calcSizes`, a 1080 × 1081 photo decoded
    /// square and so filled by `auto` (imgproxy fits a portrait source), and fractional
    /// `dpr` results a pixel or three off (one `fill` a pixel narrower than its own box).
    @Test(arguments: [
        // source, options, imgproxy's result
        (ImageSize(width: 1080, height: 1081), "auto 400x300", ImageSize(width: 300, height: 300)),
        (ImageSize(width: 1000, height: 1001), "auto 300x200", ImageSize(width: 200, height: 200)),
        (ImageSize(width: 1465, height: 3035), "fill 245x333 dpr 1.5", ImageSize(width: 368, height: 500)),
        (ImageSize(width: 3049, height: 2913), "fit 673x0 dpr 0.5", ImageSize(width: 337, height: 321)),
    ])
    func sizesFollowTheSourceNotTheShrunkDecode(_ source: ImageSize, _ request: String, _ expected: ImageSize) throws {
        let words = request.split(separator: " ").map(String.init)
        let box = words[1].split(separator: "x").compactMap { Int($0) }
        let options = Self.options { options in
            options.resizingType = ["auto": .auto, "fill": .fill, "fit": .fit, "fill-down": .fillDown][words[0]] ?? .fit
            options.width = box[0]
            options.height = box[1]
            if words.count == 4, let dpr = Double(words[3]) { options.dpr = dpr }
        }
        let pixels = PixelBuffer(width: source.width, height: source.height, filling: RGBAColor(red: 90, green: 120, blue: 150))
        let png = try PNGCoder().encode(Image(pixels: pixels), as: .png, options: ImageCoderOptions())
        let output = try processor.process(png, options: options, format: .png)
        let produced = try CodersManager.shared.decode(output.data).size
        #expect(produced == expected, "\(source) \(request): \(produced)")
    }

    /// A source within twice the box is resampled once, from the source's geometry: the
    /// result is exactly the whole decode resampled to the geometry's size and crop. The
    /// decode used to end with its own resample to the (rounded) box, 74 × 154 here, and
    /// the render then resampled that again to the geometry's 74 × 153: a second Lanczos
    /// pass by a ratio near 1, which blurs fine detail (half-pixel offsets midway cancel
    /// 1-pixel stripes). (A larger source is first shrunk to twice the box, so that the
    /// one resample left has a ratio of at least 2.)
    @Test(arguments: [("fill", 49, 67, 1.5), ("fit", 71, 0, 1.3)])
    func aShrunkDecodeIsResampledOnceFromTheSourcesGeometry(_ type: String, _ width: Int, _ height: Int, _ dpr: Double) throws {
        let source = ImageSize(width: 120, height: 249)
        var bytes = [UInt8](repeating: 255, count: source.pixelCount * 4)
        for y in 0..<source.height {
            for x in 0..<source.width {
                let offset = (y * source.width + x) * 4
                // Stripes a pixel wide, and a slower wave, so every resample shows.
                bytes[offset] = (x + y) % 2 == 0 ? 30 : 220
                bytes[offset + 1] = UInt8((x * 7 + y * 3) % 256)
                bytes[offset + 2] = UInt8((y * 5) % 256)
            }
        }
        let full = try PixelBuffer(width: source.width, height: source.height, bytes: bytes)
        let png = try PNGCoder().encode(Image(pixels: full), as: .png, options: ImageCoderOptions())
        let options = Self.options { options in
            options.resizingType = ["fill": .fill, "fit": .fit][type] ?? .fit
            options.width = width
            options.height = height
            options.dpr = dpr
        }
        let output = try processor.process(png, options: options, format: .png)
        let produced = try CodersManager.shared.decode(output.data).pixels
        let geometry = ResizeGeometry(source: source, options: options)
        let expected = full.resized(to: geometry.scaledSize, keeping: geometry.crop)
        #expect(produced.size == expected.size)
        #expect(produced == expected, "\(type) \(width)x\(height) dpr \(dpr): not one resample of the source")
    }

    @Test func fillCropsACorpusPNGToTheBox() throws {
        let output = try processor.process(Corpus.data("TestImage.png"), options: Self.options { $0.resizingType = .fill; $0.width = 120; $0.height = 60 }, format: .webp)
        #expect(output.format == .webp)
        #expect(ImageFormat(sniffing: output.data) == .webp)
        #expect(try CodersManager.shared.decode(output.data).size == ImageSize(width: 120, height: 60))
    }

    @Test func animationStaysAnimatedWithEveryFrameResizedAndTimingKept() throws {
        let gif = try Corpus.data("TestImage.gif")
        let source = try CodersManager.shared.decode(gif)
        try #require(source.frameCount > 1)
        let output = try processor.process(gif, options: Self.options { $0.width = 20 }, format: .webp)
        #expect(output.format == .webp)
        let image = try CodersManager.shared.decode(output.data)
        #expect(image.frameCount == source.frameCount)
        #expect(image.size == ImageSize(width: 20, height: 20))
        #expect(image.frames.allSatisfy { $0.pixels.size == image.size })
        #expect(image.loopCount == source.loopCount)
        for (result, original) in zip(image.frames, source.frames) {
            #expect(abs(result.duration - original.duration) < 0.011)
        }
    }

    /// imgproxy's `determineOutputFormat`: a source in a preferred format (JPEG, PNG, GIF by
    /// default) keeps it; any other (TIFF, BMP, WebP, HEIC, ...) becomes the first
    /// preferred format that holds its transparency and animation. A TIFF used to come back
    /// as TIFF, which browsers cannot show.
    @Test func sourcesOutsideThePreferredFormatsBecomeTheFirstThatFits() throws {
        let tiffs = Corpus.fixtures.appendingPathComponent("tiff")
        let opaque = try processor.process(Data(contentsOf: tiffs.appendingPathComponent("gray8.tif")), options: ProcessingOptions(), format: nil)
        #expect(opaque.format == .jpeg)
        #expect(ImageFormat(sniffing: opaque.data) == .jpeg)
        let alpha = try processor.process(Data(contentsOf: tiffs.appendingPathComponent("gray-alpha8.tif")), options: ProcessingOptions(), format: nil)
        #expect(alpha.format == .png)
        #expect(processor.outputFormat(source: .undefined, negotiated: [], animated: false, transparent: false) == .jpeg)
        #expect(processor.outputFormat(source: .heic, negotiated: [], animated: false, transparent: true) == .png)
        #expect(processor.outputFormat(source: .gif, negotiated: [], animated: true, transparent: true) == .gif)
        #expect(processor.outputFormat(source: .webp, negotiated: [], animated: false, transparent: false) == .jpeg)
        #expect(processor.outputFormat(source: .webp, negotiated: [], animated: true, transparent: false) == .gif)
        #expect(processor.outputFormat(source: .png, negotiated: [], animated: true, transparent: true) == .png, "APNG stays PNG, as a still")
        // Negotiated formats first; AVIF only for a still.
        #expect(processor.outputFormat(source: .png, negotiated: [.avif, .webp], animated: false, transparent: true) == .avif)
        #expect(processor.outputFormat(source: .gif, negotiated: [.avif, .webp], animated: true, transparent: true) == .webp)
        #expect(processor.outputFormat(source: .gif, negotiated: [.avif], animated: true, transparent: true) == .gif)
        // The operator's list.
        var configuration = ImageProcessor.Configuration()
        configuration.preferredFormats = [.webp, .png]
        let webpFirst = ImageProcessor(configuration: configuration)
        #expect(webpFirst.outputFormat(source: .webp, negotiated: [], animated: true, transparent: true) == .webp)
        #expect(webpFirst.outputFormat(source: .jpeg, negotiated: [], animated: false, transparent: false) == .webp)
    }

    /// imgproxy's default quality per format (`FORMAT_QUALITY`): WebP 79, AVIF 63, JPEG XL
    /// 77, the rest 80; a URL's `q` beats both.
    @Test func qualityDefaultsPerFormat() throws {
        let photo = try Corpus.data("TestImage.jpg")
        func size(_ format: ImageFormat, _ change: (inout ImageProcessor.Configuration) -> Void = { _ in }, quality: Int? = nil) throws -> Int {
            var configuration = ImageProcessor.Configuration()
            change(&configuration)
            var options = ProcessingOptions()
            options.quality = quality
            return try ImageProcessor(configuration: configuration).process(photo, options: options, format: format).data.count
        }
        #expect(ImageProcessor.Configuration().formatQuality == [.webp: 79, .avif: 63, .jpegXL: 77])
        #expect(try size(.webp) == size(.webp, quality: 79))
        #expect(try size(.webp) == size(.webp, { $0.quality = 20 }), "the format's quality comes before the general one")
        #expect(try size(.jpeg) == size(.jpeg, quality: 80))
        #expect(try size(.webp, { $0.formatQuality[.webp] = 30 }) == size(.webp, quality: 30))
    }

    @Test func rotationAndBlurComposeOnOneFrame() throws {
        let png = try ServerImages.quadrantsPNG(width: 40, height: 20)
        let output = try processor.process(png, options: Self.options { $0.rotate = 90; $0.blur = 1 }, format: .png)
        let image = try CodersManager.shared.decode(output.data)
        #expect(image.size == ImageSize(width: 20, height: 40))
        #expect(ServerImages.isClose(image.pixels[pixel: 17, 2], to: ServerImages.red, tolerance: 30))
        #expect(ServerImages.isClose(image.pixels[pixel: 2, 2], to: ServerImages.blue, tolerance: 30))
    }

    // MARK: Limits

    @Test func pixelLimitIsA422BeforeDecoding() throws {
        var configuration = ImageProcessor.Configuration()
        configuration.maxSourcePixels = 1_000
        let small = ImageProcessor(configuration: configuration)
        let png = try ServerImages.quadrantsPNG(width: 40, height: 40)
        #expect(Self.status { _ = try small.process(png, options: ProcessingOptions(), format: nil) } == 422)
        configuration.maxSourcePixels = 1_600
        #expect(Self.status { _ = try ImageProcessor(configuration: configuration).process(png, options: ProcessingOptions(), format: nil) } == nil)
    }

    /// As imgproxy does with `IMGPROXY_MAX_ANIMATION_FRAMES`: a longer animation is cut to
    /// its first frames (it used to be refused with a 422), its loop count kept.
    @Test func anAnimationOverTheFrameLimitIsCutToItsFirstFrames() throws {
        var configuration = ImageProcessor.Configuration()
        configuration.maxAnimationFrames = 2
        let gif = try Corpus.data("TestImage.gif")
        let source = try CodersManager.shared.decode(gif)
        #expect(source.frameCount == 5)
        let cut = try CodersManager.shared.decode(ImageProcessor(configuration: configuration).process(gif, options: ProcessingOptions(), format: nil).data)
        #expect(cut.frameCount == 2)
        #expect(cut.loopCount == source.loopCount)
        #expect(cut.frames.map(\.duration) == Array(source.frames.map(\.duration).prefix(2)))
        // The frames past the limit are not decoded, so the pixel limit counts two frames.
        configuration.maxSourcePixels = 2 * source.size.pixelCount
        #expect(Self.status { _ = try ImageProcessor(configuration: configuration).process(gif, options: ProcessingOptions(), format: nil) } == nil)
        configuration.maxAnimationFrames = 3
        #expect(Self.status { _ = try ImageProcessor(configuration: configuration).process(gif, options: ProcessingOptions(), format: nil) } == 422)
        // Into a still format, only the first frame is decoded.
        #expect(Self.status { _ = try ImageProcessor(configuration: configuration).process(gif, options: ProcessingOptions(), format: .png) } == nil)
    }

    /// A review's finding: `extend` pads an opaque source with transparency, but the result
    /// said it had no alpha, and the AVIF encoder (as JPEG XL's and HEIC's) then wrote the
    /// padding black.
    @Test func transparentPaddingStaysTransparentInAVIF() throws {
        try #require(AVIFCoder.encoderAvailable)
        let png = try ServerImages.quadrantsPNG(width: 40, height: 20)
        let options = Self.options {
            $0.width = 40
            $0.height = 40
            $0.extend = true
        }
        let output = try ImageProcessor().process(png, options: options, format: .avif)
        let image = try CodersManager.shared.decode(output.data)
        #expect(image.size == ImageSize(width: 40, height: 40))
        #expect(image.hasAlpha)
        #expect(image.pixels[pixel: 20, 2].alpha == 0, "the padding above the image")
        #expect(image.pixels[pixel: 20, 20].alpha == 255)
    }

    /// A review's finding: the default quality (80 %) reached the GIF encoder as a palette
    /// of 205 colours, so every GIF result was re-quantised and dithered. As in imgproxy,
    /// quality applies to the lossy formats only: 240 colours come back as 240.
    @Test func aGIFResultKeepsItsColours() throws {
        var bytes: [UInt8] = []
        for index in 0..<240 { bytes += [UInt8(index), UInt8(255 - index), UInt8(index * 7 % 256), 255] }
        let source = try CodersManager.shared.encode(Image(pixels: PixelBuffer(width: 16, height: 15, bytes: bytes), hasAlpha: false), as: .png)
        let output = try ImageProcessor().process(source, options: ProcessingOptions(), format: .gif)
        let pixels = try CodersManager.shared.decode(output.data).pixels
        var colours = Set<[UInt8]>()
        for y in 0..<15 { for x in 0..<16 { let p = pixels[pixel: x, y]; colours.insert([p.red, p.green, p.blue]) } }
        #expect(colours.count == 240)
    }

    /// A result over the largest side is scaled down to it, as imgproxy does, whether the
    /// box or the source is the larger: no box is refused for its size.
    @Test func aResultOverTheDimensionLimitIsScaledDownToIt() throws {
        var configuration = ImageProcessor.Configuration()
        configuration.maxResultDimension = 100
        let limited = ImageProcessor(configuration: configuration)
        #expect(Self.status { try limited.validate(Self.options { $0.width = 1_000_000 }) } == nil)
        let png = try ServerImages.quadrantsPNG(width: 120, height: 20)
        let decode = { (output: ImageProcessor.Output) in try CodersManager.shared.decode(output.data).size }
        #expect(try decode(limited.process(png, options: ProcessingOptions(), format: .png)) == ImageSize(width: 100, height: 17))
        #expect(try decode(limited.process(png, options: Self.options { $0.width = 60; $0.dpr = 2 }, format: .png)) == ImageSize(width: 100, height: 17))
        let padded = Self.options { $0.width = 400; $0.height = 200; $0.enlarge = true; $0.extend = true }
        #expect(try decode(limited.process(png, options: padded, format: .png)) == ImageSize(width: 100, height: 50))
    }

    /// With the dimension limit raised past what a format can hold, a result is scaled to
    /// the format's own limit, as imgproxy's `fixSize` does: a WebP 20,000 wide failed in
    /// libwebp, a 500 (review finding).
    @Test func aResultOverItsFormatsLargestSideIsScaledDownToIt() throws {
        var configuration = ImageProcessor.Configuration()
        configuration.maxResultDimension = 100_000
        let raised = ImageProcessor(configuration: configuration)
        // Thin, so the results stay small: 20,000 × 50 pixels at most.
        let png = try ServerImages.quadrantsPNG(width: 800, height: 2)
        let wide = Self.options { $0.width = 20_000; $0.enlarge = true }
        for (format, side) in [(ImageFormat.webp, 16_383), (.gif, 20_000)] {
            let output = try raised.process(png, options: wide, format: format)
            #expect(try CodersManager.shared.decode(output.data).size.width == side, "\(format)")
        }
    }

    /// `fill` with `enlarge` scales a thin source by the larger ratio: a 2 × 2,000 source
    /// filling 2,000 square would be 2,000 × 2,000,000 pixels (16 GB) before its crop. Only
    /// the crop is resampled, so the result comes back as asked.
    @Test func enlargedFillOfASliverResamplesOnlyTheCrop() throws {
        let png = try ServerImages.quadrantsPNG(width: 2, height: 2_000)
        let options = Self.options { $0.resizingType = .fill; $0.width = 2_000; $0.height = 2_000; $0.enlarge = true }
        let output = try processor.process(png, options: options, format: .jpeg)
        #expect(try CodersManager.shared.decode(output.data).size == ImageSize(width: 2_000, height: 2_000))
    }

    /// Every frame of an animation is rendered at the canvas size: all of them together may
    /// have the pixels of one frame at the largest side (here 64 × 64), else a 400, as a
    /// 1 × 1 GIF of 1,000 frames padded to 8,192 square would hold 268 GB.
    @Test func framesOfAnAnimatedResultAreBoundedTogether() throws {
        let gif = try Corpus.data("TestImage.gif")
        let frames = try CodersManager.shared.decode(gif).frameCount
        try #require(frames > 1 && frames <= 64)
        var configuration = ImageProcessor.Configuration()
        configuration.maxResultDimension = 64
        let limited = ImageProcessor(configuration: configuration)
        let padded = Self.options { $0.width = 64; $0.height = 64; $0.extend = true }
        #expect(Self.status { _ = try limited.process(gif, options: padded, format: .gif) } == 400)
        let enlarged = Self.options { $0.width = 64; $0.height = 64; $0.enlarge = true }
        #expect(Self.status { _ = try limited.process(gif, options: enlarged, format: .gif) } == 400)
        // One frame of it, or frames small enough together, pass.
        #expect(Self.status { _ = try limited.process(gif, options: padded, format: .png) } == nil)
        #expect(Self.status { _ = try limited.process(gif, options: Self.options { $0.width = 8; $0.height = 8 }, format: .gif) } == nil)
    }

    /// A decoder's own byte limit (SVG's, here lowered to 1 KiB) is the source's size: a 413,
    /// not a 500.
    @Test func aSourceOverItsDecodersByteLimitIsA413() throws {
        let coder = CodersManager()
        coder.removeCoders { $0 is SVGCoder }
        coder.addCoder(SVGCoder(maxDataSize: 1_024))
        var configuration = ImageProcessor.Configuration()
        configuration.coder = coder
        let svg = Data(("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><!--" + String(repeating: "x", count: 2_000) + "--></svg>").utf8)
        #expect(Self.status { _ = try ImageProcessor(configuration: configuration).process(svg, options: ProcessingOptions(), format: .png) } == 413)
    }

    @Test func formatTheCoderCannotEncodeIsA400() {
        #expect(Self.status { try processor.validate(Self.options { $0.format = .tiff }) } == 400)
        #expect(Self.status { try processor.validate(Self.options { $0.format = .pdf }) } == 400)
        #expect(Self.status { try processor.validate(Self.options { $0.format = .png }) } == nil)
    }

    @Test func missingPageIsA400() throws {
        let gif = try Corpus.data("TestImage.gif")
        let frames = try CodersManager.shared.decode(gif).frameCount
        #expect(Self.status { _ = try processor.process(gif, options: Self.options { $0.page = frames }, format: nil) } == 400)
        #expect(Self.status { _ = try processor.process(gif, options: Self.options { $0.page = frames - 1 }, format: nil) } == nil)
        // A still image has page 0 only.
        let png = try ServerImages.quadrantsPNG(width: 4, height: 4)
        #expect(Self.status { _ = try processor.process(png, options: Self.options { $0.page = 1 }, format: nil) } == 400)
    }

    @Test(arguments: [Data(), Data("hello, not an image".utf8), Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0])])
    func bytesThatAreNotAnImageAreA422(_ data: Data) {
        #expect(Self.status { _ = try processor.process(data, options: ProcessingOptions(), format: nil) } == 422)
    }

    /// imgproxy's `page` picks a PDF's page, rendered alone; one past the end is refused.
    @Test func pageChoosesThePageOfAPDF() throws {
        let pdf = PDFDocuments.make(pages: (0..<3).map { .init(width: 20, height: 10, color: PDFDocuments.color(of: $0 * 300)) })
        // Refused unless the server is told to render PDFs (`WEBIMAGE_ALLOW_PDF`).
        #expect(Self.status { _ = try processor.process(pdf, options: Self.options { $0.page = 2 }, format: .png) } == 422)
        var trusting = ImageProcessor.Configuration()
        trusting.coder = CodersManager(coders: CodersManager.builtInCodersWithDocuments)
        let pdfProcessor = ImageProcessor(configuration: trusting)
        let output = try pdfProcessor.process(pdf, options: Self.options { $0.page = 2 }, format: .png)
        let image = try PNGCoder().decode(output.data, options: ImageCoderOptions())
        let c = PDFDocuments.color(of: 600)
        #expect(image.size == ImageSize(width: 20, height: 10))
        #expect(image.pixels[pixel: 10, 5] == RGBAColor(red: c.red, green: c.green, blue: c.blue, alpha: 255))
        #expect(Self.status { _ = try pdfProcessor.process(pdf, options: Self.options { $0.page = 3 }, format: .png) } == 422)
    }

    /// A vector source is drawn at the box whether `enlarge` is on or off, as imgproxy does
    /// (its `enlarge` is for rasters): the 131×76 corpus SVG asked for at 524 pixels wide
    /// comes out 524 wide either way, and the two results are the same vector drawing,
    /// not a small one scaled up; the decoder is asked for the box in both cases.
    @Test func vectorSourcesAreDrawnAtTheBoxEnlargingOrNot() throws {
        let svg = try Corpus.data("TestImage.svg")
        // Refused unless the server is told to render SVGs (`WEBIMAGE_ALLOW_SVG`).
        #expect(Self.status { _ = try processor.process(svg, options: Self.options { $0.width = 524 }, format: .png) } == 422)
        var trusting = ImageProcessor.Configuration()
        trusting.coder = CodersManager(coders: CodersManager.builtInCodersWithDocuments)
        let vectorProcessor = ImageProcessor(configuration: trusting)
        let plain = try vectorProcessor.process(svg, options: Self.options { $0.width = 524 }, format: .png)
        let enlarged = try vectorProcessor.process(svg, options: Self.options { $0.width = 524; $0.enlarge = true }, format: .png)
        let plainImage = try PNGCoder().decode(plain.data, options: ImageCoderOptions())
        let enlargedImage = try PNGCoder().decode(enlarged.data, options: ImageCoderOptions())
        #expect(plainImage.size == ImageSize(width: 524, height: 304))
        #expect(enlargedImage.size == plainImage.size)
        #expect(enlargedImage.pixels == plainImage.pixels)
        let vector = vectorProcessor.decodeOptions(for: Self.options { $0.width = 524; $0.enlarge = true }, keepsAnimation: false, format: .svg)
        #expect(vector.thumbnailPixelSize == ImageSize(width: 524, height: Int(Int32.max)))
        let raster = vectorProcessor.decodeOptions(for: Self.options { $0.width = 524; $0.enlarge = true }, keepsAnimation: false)
        #expect(raster.thumbnailPixelSize == nil)
    }

    /// A vector is scaled up without `enlarge`, as imgproxy does: `force` with one side
    /// changes only that side, a `dpr` with no box doubles it, and a box over the result
    /// limit is drawn at the limit instead of being refused by the renderer (131×76 SVG).
    @Test func vectorSourcesFollowImgproxysVectorRules() throws {
        let svg = try Corpus.data("TestImage.svg")
        func size(_ change: (inout ProcessingOptions) -> Void, limit: Int = 8_192) throws -> ImageSize {
            var configuration = ImageProcessor.Configuration()
            configuration.coder = CodersManager(coders: CodersManager.builtInCodersWithDocuments)
            configuration.maxResultDimension = limit
            let output = try ImageProcessor(configuration: configuration).process(svg, options: Self.options(change), format: .png)
            return try PNGCoder().decode(output.data, options: ImageCoderOptions()).size
        }
        #expect(try size { $0.resizingType = .force; $0.width = 300 } == ImageSize(width: 300, height: 76))
        #expect(try size { $0.dpr = 2 } == ImageSize(width: 262, height: 152))
        #expect(try size({ $0.width = 100_000 }, limit: 500) == ImageSize(width: 500, height: 290))
        #expect(try size({ $0.resizingType = .fit; $0.width = 10_000; $0.height = 10_000 }, limit: 1_000) == ImageSize(width: 1_000, height: 580))
    }

    @Test func formatsWithoutADecoderAreA422() throws {
        let svg = try Corpus.data("TestImage.svg")
        let withoutSVG = CodersManager()
        withoutSVG.removeCoders { $0 is SVGCoder }
        var configuration = ImageProcessor.Configuration()
        configuration.coder = withoutSVG
        #expect(Self.status { _ = try ImageProcessor(configuration: configuration).process(svg, options: ProcessingOptions(), format: .png) } == 422)
    }

    @Test func hugeClaimedPNGIsRefusedFastWithoutAllocating() throws {
        let data = ServerImages.pngClaiming(width: 30_000, height: 30_000)
        #expect(data.count < 200)
        let before = try #require(residentBytes())
        let start = ContinuousClock.now
        #expect(Self.status { _ = try processor.process(data, options: Self.options { $0.width = 100 }, format: nil) } == 422)
        #expect(ContinuousClock.now - start < TestTime.prompt)
        let after = try #require(residentBytes())
        #expect(after - before < residentGrowthBoundForARefusal, "resident memory grew by \(after - before) bytes")
    }

    // MARK: Metadata

    @Test(arguments: [(true, true), (false, true), (true, false), (false, false)])
    func stripOptionsDecideWhatTheResultKeeps(stripMetadata: Bool, stripColorProfile: Bool) throws {
        let source = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("metadata/exif-xmp-icc.jpg"))
        for keepCopyright in [true, false] {
            let options = Self.options {
                $0.width = 32
                $0.stripMetadata = stripMetadata
                $0.stripColorProfile = stripColorProfile
                $0.keepCopyright = keepCopyright
            }
            let output = try processor.process(source, options: options, format: .jpeg)
            let tags = try ExifTool.tags(of: output.data, ext: "jpg")
            var expected: Set<String> = []
            if !stripMetadata { expected.formUnion(["EXIF", "XMP"]) }
            // keep_copyright (imgproxy's default) leaves the credit in a stripped result.
            if stripMetadata, keepCopyright { expected.insert("EXIF") }
            if !stripColorProfile { expected.insert("ICC_Profile") }
            #expect(ExifTool.blockGroups(tags) == expected, "keep_copyright \(keepCopyright)")
            if !stripMetadata {
                // auto_rotate turned the result upright.
                #expect(tags["EXIF:Orientation"] as? Int == 1)
                #expect(tags["EXIF:GPSLatitude"] != nil)
            } else if keepCopyright {
                #expect(tags["EXIF:Copyright"] as? String == "CC0 swift-web-image")
                #expect(tags["EXIF:Artist"] as? String == "Metadata Fixture")
                #expect(tags["EXIF:GPSLatitude"] == nil)
            }
        }
    }

    /// A review's finding: with `auto_rotate:0` a HEIC or AVIF source came out sideways.
    /// Their turn is the container's, which libvips always applies, so imgproxy's result is
    /// upright whatever `auto_rotate` says.
    @Test(arguments: ["heif/orientation-6.heic", "avif/orientation-6.avif"])
    func aHEIFOrAVIFSourceIsUprightWithoutAutoRotate(path: String) throws {
        let source = try Data(contentsOf: Corpus.fixtures.appendingPathComponent(path))
        let upright = try CodersManager.shared.decode(processor.process(source, options: ProcessingOptions(), format: .png).data)
        let asStored = try CodersManager.shared.decode(processor.process(source, options: Self.options { $0.autoRotate = false }, format: .png).data)
        #expect(asStored.size == upright.size)
        #expect(asStored.pixels == upright.pixels)
    }

    /// A review's finding: `ar:0` with `rot:90` and the metadata kept wrote the turned
    /// pixels with the source's EXIF orientation, and viewers turned them again. Also every
    /// repeat of the tag is reset (Pillow reads the last).
    @Test func aRotationOfAnUnturnedSourceResetsTheKeptOrientation() throws {
        let source = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("metadata/exif-xmp-icc.jpg"))
        let options = Self.options {
            $0.autoRotate = false
            $0.rotate = 90
            $0.stripMetadata = false
        }
        let tags = try ExifTool.tags(of: processor.process(source, options: options, format: .jpeg).data, ext: "jpg")
        #expect(tags["EXIF:Orientation"] as? Int == 1)
        let kept = try ExifTool.tags(of: processor.process(source, options: Self.options { $0.autoRotate = false; $0.stripMetadata = false }, format: .jpeg).data, ext: "jpg")
        #expect(kept["EXIF:Orientation"] as? Int != 1, "not turned: the source's orientation stays, as imgproxy keeps it")
    }
}
