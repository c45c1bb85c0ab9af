import Foundation
import WebImage

/// Turns a source's bytes and a URL's options into the bytes of the result: decode at the
/// size needed, resize, crop, rotate, blur, pad, flatten, encode.
///
/// Decoding goes straight to the size the result needs (JPEG's DCT scaling, WebP's scaled
/// decode, via ``ImageCoderOptions/thumbnailPixelSize``), with the source's pixels, frames
/// and the result's size checked against the limits before anything large is allocated.
/// An animated GIF or WebP stays animated when the output format can animate; every frame
/// then goes through the same steps. CPU-bound and synchronous: call it from a thread that
/// may block (the server runs it on its worker threads). Immutable and thread-safe.
///
/// ```swift
/// let processor = ImageProcessor(configuration: .init())
/// let result = try processor.process(sourceBytes, options: options, format: .webp)
/// ```
public struct ImageProcessor: Sendable {
    /// Limits and defaults of processing.
    public struct Configuration: Sendable {
        /// Decodes and encodes; default ``CodersManager/shared``.
        public var coder: any ImageCoder = CodersManager.shared
        /// Quality when the URL gives none and ``formatQuality`` has none for the format,
        /// 1...100; default 80 (imgproxy's).
        public var quality = 80
        /// Quality per output format when the URL gives none, before ``quality``; default
        /// imgproxy's: WebP 79, AVIF 63, JPEG XL 77 (sizes like JPEG's at 80).
        public var formatQuality: [ImageFormat: Int] = [.webp: 79, .avif: 63, .jpegXL: 77]
        /// The formats a result is made in when neither the URL nor the negotiation picks
        /// one, best first (imgproxy's `PREFERRED_FORMATS`): the source's format when it is
        /// one of them, else the first that can hold the result (its animation, its
        /// transparency), else the first. Default JPEG, PNG, GIF: what every client shows.
        public var preferredFormats: [ImageFormat] = [.jpeg, .png, .gif]
        /// The most pixels a source may have, all frames of an animation together; default
        /// 50 million (imgproxy's `MAX_SRC_RESOLUTION` of 50 megapixels).
        public var maxSourcePixels = 50_000_000
        /// The most frames of an animated source that are decoded and kept; a longer
        /// animation is cut to its first ones, as imgproxy cuts it. Default 1,000.
        public var maxAnimationFrames = 1_000
        /// The largest width or height of a result; default 8,192. All frames of an animated
        /// result together may have at most its square in pixels (what one frame at the
        /// largest side has).
        public var maxResultDimension = 8_192

        /// The defaults above.
        public init() {}
    }

    /// A finished result.
    public struct Output: Sendable {
        /// The encoded bytes.
        public var data: Data
        /// Their format.
        public var format: ImageFormat
    }

    /// The limits and defaults in force.
    public let configuration: Configuration

    /// Creates a processor.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Formats that can be written as animations.
    static let animatedFormats: Set<ImageFormat> = [.gif, .webp]

    /// The largest side each format's encoder can write: libwebp's 16,383, HEIF's and
    /// AVIF's 16,384 (imgproxy's `heifMaxResolution`), GIF's 65,535 (a 16-bit field) and
    /// libjpeg's 65,500. A result over its format's is scaled down to it, as imgproxy's
    /// `fixSize` does; it failed in the encoder, a 500, when
    /// ``Configuration/maxResultDimension`` was raised past it.
    static let maximumDimensions: [ImageFormat: Int] = [.webp: 16_383, .avif: 16_384, .heic: 16_384, .heif: 16_384, .gif: 65_535, .jpeg: 65_500]

    /// Whether sources in `format` are drawn at the size asked for (SVG, PDF), not decoded
    /// at a size of their own.
    static func isVector(_ format: ImageFormat) -> Bool {
        format == .svg || format == .pdf
    }

    /// Checks what can be checked from the options alone (no source needed): that the
    /// server can write the format asked for. A box over ``Configuration/maxResultDimension``
    /// is not refused: the result is scaled down to the limit, as imgproxy does.
    public func validate(_ options: ProcessingOptions) throws(ImageServerError) {
        if let format = options.format, !configuration.coder.canEncode(to: format) {
            throw .badOptions("the server cannot encode \(format.rawValue)")
        }
    }

    /// Processes `data` with `options`. `format` is the output format when the URL names
    /// one; otherwise `negotiated` (the formats the client's `Accept` allows, best first)
    /// and then ``Configuration/preferredFormats`` choose, as imgproxy's
    /// `determineOutputFormat` does: AVIF is skipped for an animation, and the source's own
    /// format is kept only when it is a preferred one.
    /// - Throws: ``ImageServerError``: 422 for sources over the limits or not decodable,
    ///   400 for options the source makes impossible, 500 when encoding fails.
    public func process(_ data: Data, options: ProcessingOptions, format: ImageFormat?, negotiated: [ImageFormat] = []) throws(ImageServerError) -> Output {
        try validate(options)
        let sourceFormat = ImageFormat(sniffing: data)
        // Whether to decode every frame, before the frames are known: when the format the
        // result would have as an animation can animate.
        let animatedOutput = format ?? outputFormat(source: sourceFormat, negotiated: negotiated, animated: true, transparent: true)
        let (decoded, sourceSize) = try decode(data, format: sourceFormat, options: options, keepsAnimation: Self.keepsAnimation(animatedOutput, options))
        var image = decoded
        // A PDF's decoder renders the page asked for (``ImageCoderOptions/pageIndex``);
        // other sources give their frames and the page is picked here.
        if let page = options.page, sourceFormat != .pdf {
            guard page < decoded.frameCount else {
                throw .badOptions("page \(page) does not exist: the source has \(decoded.frameCount) (the frame limit keeps at most \(configuration.maxAnimationFrames))")
            }
            image = Image(
                frames: [ImageFrame(pixels: decoded.frames[page].pixels)], format: decoded.format, hasAlpha: decoded.hasAlpha,
                colorProfile: decoded.colorProfile, metadata: decoded.metadata)
        }
        let transparent = options.background == nil && (image.hasAlpha || options.extend)
        let output = format ?? outputFormat(source: sourceFormat, negotiated: negotiated, animated: image.isAnimated, transparent: transparent)
        let limit = min(configuration.maxResultDimension, Self.maximumDimensions[output] ?? .max)
        let geometry = ResizeGeometry(source: sourceSize, options: options, maxResultDimension: limit, isVector: Self.isVector(sourceFormat))
        // The geometry scales the result down to the limit; its rounding must not pass it.
        guard geometry.canvasSize.width <= limit, geometry.canvasSize.height <= limit else {
            throw .badOptions("the result would be \(geometry.canvasSize), over the limit of \(limit) pixels a side")
        }
        // Every frame of an animation is rendered at the canvas size and kept until the
        // encode: together they may have what one frame at the largest side may. Without
        // that a 1 × 1 GIF of 1,000 frames (within every source limit) padded or enlarged to
        // 8,192 pixels square would hold 268 GB.
        // `pixelCount` counts an overflowing product as Int.max, more than any budget.
        let resultPixels = geometry.canvasSize.pixelCount.multipliedReportingOverflow(by: image.frameCount)
        let budget = ImageSize(width: limit, height: limit).pixelCount
        guard !resultPixels.overflow, resultPixels.partialValue <= budget else {
            throw .badOptions(
                "the result would be \(image.frameCount) frames of \(geometry.canvasSize), over the limit of \(budget) pixels for all frames together"
            )
        }
        let frames: [ImageFrame]
        do {
            frames = try image.frames.map { frame in
                ImageFrame(pixels: try render(frame.pixels, geometry: geometry, options: options), duration: frame.duration)
            }
        } catch {
            throw .processing(WebImageError(error))
        }
        // Transparent padding (`extend` with no background) makes an opaque source's result
        // transparent: the AVIF, JPEG XL and HEIC encoders keep an alpha channel only for an
        // image that says it has one, and wrote the padding black.
        // Pixels turned here, from a source decoded as stored (`auto_rotate:0`): the kept
        // EXIF and XMP must not name the source's orientation any more, or a viewer turns
        // the result again (imgproxy drops the tag whenever it rotates).
        let metadata = !options.autoRotate && options.rotate % 360 != 0 ? image.metadata.orientationReset() : image.metadata
        let result = Image(
            frames: frames, format: output, loopCount: image.loopCount,
            hasAlpha: options.background == nil && (image.hasAlpha || frames.contains { $0.pixels.containsTransparency }),
            isTransformed: true,
            colorProfile: image.colorProfile, metadata: metadata
        )
        return Output(data: try encode(result, as: output, options: options), format: output)
    }

    /// Whether an animation should be decoded whole: the output can animate and no single
    /// page was asked for.
    static func keepsAnimation(_ format: ImageFormat, _ options: ProcessingOptions) -> Bool {
        animatedFormats.contains(format) && options.page == nil
    }

    /// Moves with every change to the bytes a result is made of from the same source and
    /// options (a resampling fix, an encoder setting): part of the result cache's disk
    /// namespace, so a shared folder never serves what an older build made. 2: one
    /// resample from the source's geometry, lossy WebP with alpha shrunk premultiplied.
    public static let outputRevision = 2

    /// The decoder's options: the pixel limit, orientation, and a thumbnail box large
    /// enough for the geometry that follows (covering the box for the cropping types), so
    /// a 24-megapixel JPEG resized to 512 pixels is decoded at an eighth of its size.
    /// A vector source (`isVector`: SVG, PDF) always gets the box, enlarging or not: it is
    /// drawn at the size asked for, crisp, as imgproxy draws it (its `enlarge` applies to
    /// raster sources only), rather than drawn small and scaled up as a bitmap.
    ///
    /// HEIF and AVIF sources are always turned upright, `auto_rotate` or not: their
    /// rotation and mirroring are the container's (`irot`, `imir`), which libvips always
    /// lets libheif apply, so imgproxy's results of them are upright either way, and an
    /// iPhone portrait came out sideways with `ar:0`.
    func decodeOptions(for options: ProcessingOptions, keepsAnimation: Bool, format: ImageFormat = .undefined) -> ImageCoderOptions {
        let isVector = Self.isVector(format)
        var coderOptions = ImageCoderOptions()
        coderOptions.pixelLimit = configuration.maxSourcePixels
        coderOptions.applyOrientation = options.autoRotate || [.heic, .heif, .avif].contains(format)
        // What the result keeps must be read (or kept unconverted) at the decode.
        coderOptions.keepsColorProfile = !options.stripColorProfile
        coderOptions.readsMetadata = !options.stripMetadata || options.keepCopyright
        coderOptions.decodeFirstFrameOnly = !keepsAnimation && options.page == nil
        // Frames past the limit are neither decoded nor counted against the pixel limit.
        coderOptions.maximumFrameCount = configuration.maxAnimationFrames
        coderOptions.pageIndex = options.page ?? 0
        // Enlarging a bitmap needs the source as it is; the resampler then scales it up.
        guard !options.enlarge || isVector else { return coderOptions }
        // `force` with one side changes only that side: the other stays the source's, so
        // the decode must not shrink it.
        if options.resizingType == .force, options.width == 0 || options.height == 0 { return coderOptions }
        // The box at its `dpr`, but never smaller than the box itself: the geometry decides
        // how much of a `dpr` under 1 the source allows from the source's size, and a source
        // decoded below the box would allow less than the whole one does.
        let quarterTurn = options.rotate % 180 != 0
        let boxWidth = max(options.targetWidth, options.width), boxHeight = max(options.targetHeight, options.height)
        var width = quarterTurn ? boxHeight : boxWidth
        var height = quarterTurn ? boxWidth : boxHeight
        guard width > 0 || height > 0 else { return coderOptions }
        // A vector is drawn at the box: one over the result limit is drawn at the limit
        // (the result is scaled down to it anyway), not refused by the renderer's limits.
        let longest = max(width, height), limit = configuration.maxResultDimension
        if isVector, longest > limit {
            if width > 0 { width = max(1, width * limit / longest) }
            if height > 0 { height = max(1, height * limit / longest) }
        }
        let unbounded = Int(Int32.max)
        coderOptions.thumbnailPixelSize = ImageSize(width: width > 0 ? width : unbounded, height: height > 0 ? height : unbounded)
        // The render resamples from the source's geometry; the decode's own last resample
        // to the (rounded) box would be a second Lanczos pass, by a ratio near 1, that
        // blurred fine detail. The decoder's cheap shrink (DCT, libwebp) stays.
        coderOptions.resamplesToThumbnailSize = isVector
        switch options.resizingType {
        case .force where width > 0 && height > 0:
            coderOptions.preserveAspectRatio = false
        case .fill, .fillDown, .auto:
            // `auto` becomes fill or fit only once the source's orientation is known;
            // covering the box serves both.
            coderOptions.thumbnailCoversBox = width > 0 && height > 0
        default:
            break
        }
        return coderOptions
    }

    /// Decodes the source, whose sniffed format is `format`; returns the image and the size
    /// the geometry starts from. For a bitmap that is the source's own size (upright), not
    /// the decoded one: a decode that shrinks on load rounds each side on its own, and sizes
    /// worked out from its result drifted from imgproxy's, which works them out from the
    /// source (a 1080 × 1081 photo decoded square made `auto` fill instead of fit; a
    /// fractional `dpr` came out a pixel or three off). A vector is drawn at the size asked
    /// for, so the drawing is its source.
    private func decode(
        _ data: Data, format: ImageFormat, options: ProcessingOptions, keepsAnimation: Bool
    ) throws(ImageServerError) -> (image: Image, sourceSize: ImageSize) {
        let isVector = Self.isVector(format)
        let report = DecodeGeometry.SourceSizeReport()
        let image: Image
        do {
            let decoding = decodeOptions(for: options, keepsAnimation: keepsAnimation, format: format)
            image = try DecodeGeometry.$sourceSizeReport.withValue(report) { try configuration.coder.decode(data, options: decoding) }
        } catch {
            throw .processing(WebImageError(error))
        }
        guard !isVector, let source = report.size, source.width >= image.size.width, source.height >= image.size.height else {
            return (image, image.size)
        }
        return (image, source)
    }

    /// One frame through the geometry: resample, crop, rotate, blur, pad, flatten.
    private func render(_ source: PixelBuffer, geometry: ResizeGeometry, options: ProcessingOptions) throws -> PixelBuffer {
        // The crop is resampled alone: with `enlarge`, the whole scaled image of a `fill`
        // follows the source's aspect ratio (a 10 × 1,000 source filling 8,192 pixels square
        // would be 8,192 × 819,200), and only the crop is ever within the limits.
        var pixels = source.resized(to: geometry.scaledSize, keeping: geometry.crop)
        if options.rotate != 0 {
            // imgproxy turns clockwise; the transformer, like SDWebImage's, counter-clockwise.
            pixels = try RotateTransformer(degrees: Double(-options.rotate)).transform(pixels: pixels)
        }
        if options.blur > 0 {
            pixels = try BlurTransformer(radius: options.blur).transform(pixels: pixels)
        }
        if geometry.canvasSize != pixels.size {
            pixels = try PixelCompositing.pad(
                pixels, to: geometry.canvasSize, at: geometry.placement, with: options.background ?? .clear
            )
        }
        if let background = options.background, pixels.containsTransparency {
            pixels = pixels.flattened(onto: background)
        }
        return pixels
    }

    private func encode(_ image: Image, as format: ImageFormat, options: ProcessingOptions) throws(ImageServerError) -> Data {
        var coderOptions = ImageCoderOptions()
        coderOptions.compressionQuality = Double(options.quality ?? configuration.formatQuality[format] ?? configuration.quality) / 100
        // As imgproxy, quality and `max_bytes` apply to the lossy formats only. To the GIF
        // encoder quality means a palette size: the default 80 % kept 205 colours and
        // dithered every GIF result through a palette of its own.
        let hasQuality = ImageFormat.qualityFormats.contains(format)
        if !hasQuality { coderOptions.compressionQuality = 1 }
        coderOptions.backgroundColor = options.background ?? .white
        coderOptions.encodeFirstFrameOnly = !(image.isAnimated && Self.animatedFormats.contains(format))
        coderOptions.maxFileSize = hasQuality ? options.maxBytes : nil
        // With the profile stripped the pixels were converted at the decode, so `.all`
        // then writes EXIF and XMP only.
        let policy: ImageCoderOptions.MetadataPolicy = options.stripMetadata
            ? (options.stripColorProfile ? .strip : .colorProfileOnly)
            : .all
        coderOptions.metadataPolicy = policy
        coderOptions.keepsCopyright = options.keepCopyright
        do {
            return try configuration.coder.encode(image, as: format, options: coderOptions)
        } catch {
            let error = WebImageError(error)
            if case .unsupportedFormat = error { throw .badOptions("the server cannot encode \(format.rawValue)") }
            throw .internalFailure(error.description)
        }
    }

    /// The format of a result whose URL names none (imgproxy's `determineOutputFormat`):
    /// the first negotiated format (AVIF only for a still), else the source's format when
    /// it is a preferred one, else the first preferred format that can hold an animation
    /// (`animated`) and transparency (`transparent`), else the first. Formats the coder
    /// cannot write are passed over.
    func outputFormat(source: ImageFormat, negotiated: [ImageFormat], animated: Bool, transparent: Bool) -> ImageFormat {
        let coder = configuration.coder
        if let chosen = negotiated.first(where: { !(animated && $0 == .avif) && coder.canEncode(to: $0) }) { return chosen }
        let preferred = configuration.preferredFormats.filter { coder.canEncode(to: $0) }
        if preferred.contains(source) { return source }
        let fits = preferred.first { format in
            (!animated || Self.animatedFormats.contains(format)) && (!transparent || format != .jpeg)
        }
        return fits ?? preferred.first ?? (transparent ? .png : .jpeg)
    }
}
