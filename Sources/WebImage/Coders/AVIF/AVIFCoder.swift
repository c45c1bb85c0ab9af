import CAVIF
import Foundation

/// Decodes and encodes AVIF stills and image sequences (`avis`) with libavif.
///
/// Decoding converts 8-, 10- and 12-bit YUV to 8-bit RGBA straight into the frame's pixel
/// storage and honours the `irot`/`imir` properties as an ``ImageOrientation``;
/// ``ImageCoderOptions/readsMetadata`` keeps the `Exif` and XMP items. Encoding is
/// offered only when libavif was built with an AV1 encoder (aom, rav1e or SVT-AV1), and
/// writes the profile and those items as ``ImageCoderOptions/MetadataPolicy`` says.
/// Thread-safe: the coder holds only settings, and every call creates its own libavif
/// decoder or encoder.
///
/// ```swift
/// let image = try AVIFCoder().decode(data, options: ImageCoderOptions())
/// let avif = try AVIFCoder().encode(image, as: .avif, options: ImageCoderOptions())
/// ```
public struct AVIFCoder: ImageCoder {
    /// libavif's encoder speed, 0 (slowest, smallest) to 10 (fastest). Default 8, which keeps
    /// a server's encode time near a JPEG's at a modest cost in size.
    public var encodeSpeed: Int
    /// The most threads libavif and its codec may use for one image. Default 2: decodes run
    /// concurrently already, so each one stays modest.
    public var maxThreads: Int

    /// Creates a coder with the given encoder speed and thread budget.
    public init(encodeSpeed: Int = 8, maxThreads: Int = 2) {
        self.encodeSpeed = min(10, max(0, encodeSpeed))
        self.maxThreads = max(1, maxThreads)
    }

    /// Accepts what ``ImageFormat/init(sniffing:)`` calls AVIF: the `avif`/`avis` major
    /// brands, and a generic `mif1`/`msf1` file whose compatible brands list AVIF.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat(sniffing: data) == .avif
    }

    /// Decodes every frame (or the first, with `decodeFirstFrameOnly`). Sequences report
    /// `loopCount` 0 because libavif 0.11 does not expose the edit list's repetition count.
    /// The declared size is checked against `pixelLimit` before any pixel is decoded, and all
    /// frames together may have at most `pixelLimit` pixels at their decoded (source) size,
    /// as for every other animated format.
    public func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badImageData("empty AVIF data") }
        guard let decoder = avifDecoderCreate() else { throw WebImageError.badImageData("libavif could not create a decoder") }
        defer { avifDecoderDestroy(decoder) }
        return try data.withUnsafeBytes { raw -> Image in
            try parse(raw, with: decoder, options: options, readsMetadata: options.readsMetadata)
            guard let image = decoder.pointee.image else { throw WebImageError.badImageData("AVIF has no image") }
            try DecodeGeometry.checkPixelLimit(width: Int(image.pointee.width), height: Int(image.pointee.height), options: options)
            return try decodeFrames(decoder, options: options)
        }
    }

    /// An ``AVIFFrameSource``, which decodes an AVIF sequence's frames as they are asked
    /// for. It also opens stills (one frame, which ``CodersManager`` then decodes whole:
    /// parsing the container twice costs little beside decoding AV1).
    public func makeAnimatedImageCoder(for data: Data, options: ImageCoderOptions) throws -> (any AnimatedImageCoder)? {
        AVIFFrameSource.canDecodeAnimation(data) ? try AVIFFrameSource(animatedImageData: data, options: options) : nil
    }

    /// `true` for ``ImageFormat/avif`` when the linked libavif has an AV1 encoder.
    public func canEncode(to format: ImageFormat) -> Bool {
        format == .avif && AVIFCoder.encoderAvailable
    }

    /// Whether the linked libavif has any AV1 encoder; looked up once.
    static let encoderAvailable: Bool = avifCodecName(AVIF_CODEC_CHOICE_AUTO, AVIF_CODEC_FLAG_CAN_ENCODE.rawValue) != nil

    // MARK: - Decoding

    private func decodeFrames(_ decoder: UnsafeMutablePointer<avifDecoder>, options: ImageCoderOptions) throws -> Image {
        guard let parsed = decoder.pointee.image else { throw WebImageError.badImageData("AVIF has no image") }
        let width = Int(parsed.pointee.width), height = Int(parsed.pointee.height)
        let available = Int(decoder.pointee.imageCount)
        guard available > 0 else { throw WebImageError.badImageData("AVIF has no frames") }
        let frameCount = min(available, options.frameLimit)
        let orientation = AVIFCoder.orientation(of: parsed.pointee)
        let hasAlpha = decoder.pointee.alphaPresent == AVIF_TRUE
        let source = ImageSize(width: width, height: height)
        let target = DecodeGeometry.targetSize(
            sourceSize: source, orientation: orientation, frameCount: frameCount, options: options
        )
        // The limit bounds the work as well as the memory: every frame is decoded whole
        // before it is scaled, so the frames count at their source size, as GIF, APNG, WebP
        // and JPEG XL count them. Counted at the size kept (as until 2026-11-28), a tiny
        // thumbnail let a file of millions of small inter frames, each decoded at up to the
        // limit, run for hours.
        let decodedPixels = source.pixelCount.multipliedReportingOverflow(by: frameCount)
        if frameCount > 1, decodedPixels.overflow || decodedPixels.partialValue > options.pixelLimit {
            throw WebImageError.imageTooLarge(width: width, height: height * frameCount, limit: options.pixelLimit)
        }

        var frames: [ImageFrame] = []
        frames.reserveCapacity(frameCount)
        for index in 0..<frameCount {
            try check(avifDecoderNextImage(decoder), decoder, "decoding frame \(index)")
            guard let decoded = decoder.pointee.image else { throw WebImageError.badImageData("AVIF frame \(index) is missing") }
            // The AV1 payload may disagree with the container's `ispe`; frames must match it.
            guard Int(decoded.pointee.width) == width, Int(decoded.pointee.height) == height else {
                throw WebImageError.badImageData(
                    "AVIF frame \(index) is \(decoded.pointee.width)x\(decoded.pointee.height), container says \(width)x\(height)"
                )
            }
            let pixels = try AVIFCoder.rgba(from: decoded, width: width, height: height)
            let finished = DecodeGeometry.finish(pixels, orientation: orientation, target: target, options: options)
            frames.append(ImageFrame(pixels: finished, duration: frameCount > 1 ? decoder.pointee.imageTiming.duration : 0))
        }
        // Converted after the resize, so a thumbnail converts only its own pixels.
        let profile = decoder.pointee.image.flatMap { AVIFCoder.colorProfile(of: $0.pointee) }
        let kept = ColorConversion.apply(profile, to: &frames, options: options)
        return Image(
            frames: frames,
            format: .avif,
            scale: options.scaleFactor,
            loopCount: 0,
            orientation: orientation,
            hasAlpha: hasAlpha,
            isThumbnail: target.pixelCount < (options.applyOrientation ? orientation : .up).orientedSize(source).pixelCount,
            colorProfile: kept,
            metadata: options.readsMetadata ? AVIFCoder.metadata(of: parsed.pointee, options: options) : ImageMetadata()
        )
    }

    /// The `Exif` and XMP items libavif read (``ImageCoderOptions/readsMetadata``). libavif
    /// skips the `Exif` item's offset field but may leave JPEG's `Exif\0\0` prefix, which
    /// ``ImageMetadata`` drops.
    static func metadata(of image: avifImage, options: ImageCoderOptions) -> ImageMetadata {
        func bytes(_ data: avifRWData) -> UnsafeRawBufferPointer? {
            guard let pointer = data.data, data.size > 0 else { return nil }
            return UnsafeRawBufferPointer(start: pointer, count: data.size)
        }
        return ImageMetadata.read(exif: bytes(image.exif), xmp: bytes(image.xmp), resetOrientation: options.applyOrientation)
    }

    /// The colour the `colr` box describes: its ICC profile, else its `nclx` primaries and
    /// transfer (``ColorProfile/cicp(primaries:transfer:)``).
    static func colorProfile(of image: avifImage) -> ColorProfile? {
        if let icc = image.icc.data, image.icc.size > 0 {
            return ColorConversion.profile(iccBytes: UnsafeRawBufferPointer(start: icc, count: image.icc.size))
        }
        return ColorProfile.cicp(primaries: Int(image.colorPrimaries), transfer: Int(image.transferCharacteristics))
    }

    /// Converts the decoder's current YUV(A) image to 8-bit straight RGBA, letting libavif
    /// write into the pixel buffer's own storage. An HDR image (PQ or HLG `nclx`, no ICC
    /// profile) is converted at its own depth instead and tone-mapped to sRGB
    /// (``HDRToneMapping``): its code values read as 8-bit sRGB would be a grey, washed-out
    /// picture.
    static func rgba(from image: UnsafeMutablePointer<avifImage>, width: Int, height: Int) throws -> PixelBuffer {
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.alphaPremultiplied = AVIF_FALSE
        let convert = { (rgb: inout avifRGBImage) throws in
            let result = avifImageYUVToRGB(image, &rgb)
            guard result == AVIF_RESULT_OK else {
                throw WebImageError.badImageData("AVIF colour conversion failed: \(String(cString: avifResultToString(result)))")
            }
        }
        if isHDR(image.pointee) {
            rgb.depth = max(10, min(image.pointee.depth, 16))
            guard let hdr = HDRToneMapping.cached(primaries: Int(image.pointee.colorPrimaries),
                                                  transfer: Int(image.pointee.transferCharacteristics),
                                                  sampleMaximum: (1 << Int(rgb.depth)) - 1) else {
                throw WebImageError.badImageData("AVIF HDR colour cannot be mapped")
            }
            rgb.rowBytes = UInt32(width * 8)
            let samples = UnsafeMutableRawBufferPointer.allocate(byteCount: width * height * 8, alignment: 2)
            defer { samples.deallocate() }
            rgb.pixels = samples.baseAddress?.assumingMemoryBound(to: UInt8.self)
            try convert(&rgb)
            return PixelBuffer(uninitializedWidth: width, height: height) { buffer in
                guard let source = samples.baseAddress, let destination = buffer.baseAddress else { return }
                hdr.map(source, sourceRowBytes: width * 8, width: width, height: height, into: destination)
            }
        }
        rgb.depth = 8
        rgb.rowBytes = UInt32(width * 4)
        return try PixelBuffer(uninitializedWidth: width, height: height) { buffer in
            rgb.pixels = buffer.baseAddress
            try convert(&rgb)
        }
    }

    /// Whether the image is HDR as far as its colour description says: a PQ or HLG `nclx`
    /// and no ICC profile.
    static func isHDR(_ image: avifImage) -> Bool {
        image.icc.size == 0
            && HDRToneMapping.describesHDR(primaries: Int(image.colorPrimaries), transfer: Int(image.transferCharacteristics))
    }

    /// Sets a new decoder up and parses `bytes` (which must outlive it) with it: what the
    /// one-shot decode and ``AVIFFrameSource`` both do before reading frames.
    /// - libavif's strict checks but one: an AV1 item without the `pixi` property is
    ///   decoded. libheif 1.11 and older wrote none, and libavif documents the flag as the
    ///   one to drop for such files; Pillow decodes them. The property only restates the bit
    ///   depth and channel count the AV1 sequence header gives anyway; the size and `clap`
    ///   checks stay.
    /// - The pixel limit, which libavif hands to the AV1 decoder too: dav1d then refuses to
    ///   allocate a frame above it, whatever size the AV1 payload claims. An oversized
    ///   header, which libavif reports as a parse failure, is named as such.
    /// - EXIF is copied out of the file only with `readsMetadata`; XMP always, since it may
    ///   hold the orientation (``orientation(of:)``).
    func parse(
        _ bytes: UnsafeRawBufferPointer,
        with decoder: UnsafeMutablePointer<avifDecoder>,
        options: ImageCoderOptions,
        readsMetadata: Bool
    ) throws {
        decoder.pointee.strictFlags = AVIF_STRICT_ENABLED.rawValue & ~AVIF_STRICT_PIXI_REQUIRED.rawValue
        decoder.pointee.maxThreads = Int32(maxThreads)
        decoder.pointee.ignoreXMP = AVIF_FALSE
        decoder.pointee.ignoreExif = readsMetadata ? AVIF_FALSE : AVIF_TRUE
        guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else {
            throw WebImageError.badImageData("empty AVIF data")
        }
        try check(avifDecoderSetIOMemory(decoder, base, bytes.count), decoder, "reading")
        let limit = UInt32(clamping: max(1, options.pixelLimit))
        decoder.pointee.imageSizeLimit = min(UInt32(AVIF_DEFAULT_IMAGE_SIZE_LIMIT), limit)
        decoder.pointee.imageDimensionLimit = min(UInt32(AVIF_DEFAULT_IMAGE_DIMENSION_LIMIT), limit)
        let parsed = avifDecoderParse(decoder)
        if parsed != AVIF_RESULT_OK, let declared = HEIFPropertyReader.size(in: bytes) {
            try DecodeGeometry.checkPixelLimit(width: declared.width, height: declared.height, options: options)
        }
        try check(parsed, decoder, "parsing")
    }

    /// The EXIF orientation equivalent to the image's `irot`/`imir` properties, which rule
    /// over EXIF in AVIF. An image with neither takes its XMP packet's `tiff:Orientation`
    /// if it has one, as Pillow's `exif_transpose` does (issue 14; JPEG, PNG and WebP read
    /// XMP's where their EXIF has none).
    static func orientation(of image: avifImage) -> ImageOrientation {
        let flags = image.transformFlags
        guard flags & (AVIF_TRANSFORM_IROT.rawValue | AVIF_TRANSFORM_IMIR.rawValue) != 0 else {
            guard image.xmp.size > 0, let data = image.xmp.data else { return .up }
            return ImageMetadata.xmpOrientation(in: UnsafeRawBufferPointer(start: data, count: image.xmp.size)) ?? .up
        }
        let rotation = flags & AVIF_TRANSFORM_IROT.rawValue != 0 ? Int(image.irot.angle) : nil
        let mirror = flags & AVIF_TRANSFORM_IMIR.rawValue != 0 ? Int(image.imir.mode) : nil
        return HEIFOrientation.orientation(rotation: rotation, mirror: mirror)
    }

    /// Turns a libavif failure into ``WebImageError/badImageData(_:)`` with libavif's reason.
    func check(_ result: avifResult, _ decoder: UnsafeMutablePointer<avifDecoder>, _ step: String) throws {
        guard result != AVIF_RESULT_OK else { return }
        throw WebImageError.badImageData("AVIF \(step) failed: \(AVIFCoder.reason(result, decoder.pointee.diag))")
    }

    /// libavif's words for a failed call: the result's name, then the detail the decoder
    /// or encoder wrote into its diagnostics, if any.
    static func reason(_ result: avifResult, _ diagnostics: avifDiagnostics) -> String {
        let reason = String(cString: avifResultToString(result))
        let detail = withUnsafeBytes(of: diagnostics.error, String.init(cBuffer:))
        return detail.isEmpty ? reason : "\(reason) (\(detail))"
    }
}

extension AVIFCoder {
    /// libavif with the AV1 codecs it was built with ("0.11.1 (dav1d [dec]:1.0.0, aom [enc/dec]:3.6.0)").
    static var linkedLibrary: LinkedLibrary {
        var codecs = [CChar](repeating: 0, count: 256)
        avifCodecVersions(&codecs)
        let codecText = String(cBuffer: codecs)
        let version = String(cString: avifVersion())
        return LinkedLibrary(name: "libavif", version: codecText.isEmpty ? version : "\(version) (\(codecText))")
    }
}
