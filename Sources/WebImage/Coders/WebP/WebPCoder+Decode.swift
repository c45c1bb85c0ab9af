import CWebP

extension WebPCoder {
    /// Decodes a still WebP straight into the result's storage, at the target size when
    /// that is smaller (libwebp scales while decoding), then orients it.
    static func decodeStill(_ bytes: UnsafeRawBufferPointer, features: WebPBitstreamFeatures,
                            options: ImageCoderOptions) throws -> Image {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw WebImageError.badImageData("empty data")
        }
        let source = ImageSize(width: Int(features.width), height: Int(features.height))
        let (orientation, profile, metadata) = withDemuxer(bytes) { demuxer in
            (fileOrientation(in: demuxer) ?? .up, iccProfile(in: demuxer), WebPCoder.metadata(in: demuxer, options: options))
        } ?? (.up, nil, ImageMetadata())
        let target = DecodeGeometry.targetSize(sourceSize: source, orientation: orientation, frameCount: 1, options: options)
        let applied: ImageOrientation = options.applyOrientation ? orientation : .up
        let stored = applied.orientedSize(target)

        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw WebImageError.badImageData("libwebp version mismatch")
        }
        let decoded = scaledDecodeSize(source: source, stored: stored, features: features, options: options)
        if decoded != source {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(decoded.width)
            config.options.scaled_height = Int32(decoded.height)
        }
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        let pixels = try PixelBuffer(uninitializedWidth: decoded.width, height: decoded.height) { buffer in
            config.output.u.RGBA.rgba = buffer.baseAddress
            config.output.u.RGBA.stride = Int32(decoded.width * 4)
            config.output.u.RGBA.size = buffer.count
            // External memory: libwebp writes into `buffer` and allocates no output of its
            // own, so there is nothing to free afterwards.
            let status = WebPDecode(base, bytes.count, &config)
            guard status == VP8_STATUS_OK else {
                throw WebImageError.badImageData("WebP: \(describe(status))")
            }
        }
        // Converted after the resize, so a thumbnail converts only its own pixels.
        var finished = DecodeGeometry.finish(pixels, orientation: orientation, target: target, options: options)
        let kept = ColorConversion.apply(profile, to: &finished, options: options)
        return Image(
            frames: [ImageFrame(pixels: finished)],
            format: .webp, scale: options.scaleFactor, loopCount: 1, orientation: orientation,
            hasAlpha: features.has_alpha != 0, isThumbnail: stored != source, colorProfile: kept, metadata: metadata)
    }

    /// The size libwebp decodes a still at, for a result `stored` (as stored) from `source`:
    /// `stored` itself (libwebp scales while decoding, the cheapest thumbnail), except:
    ///
    /// - A lossy image with alpha is shrunk by libwebp to four times `stored` at most (or
    ///   not at all), and resampled premultiplied from there. libwebp rescales a lossy
    ///   image's colour planes and its alpha apart, without weighting colour by alpha, so
    ///   the colour hidden under transparent pixels bled into the edges: red on transparent
    ///   black came out with a dark-red fringe (128, 0, 0, 128 where PNG's path gives 255,
    ///   0, 0, 128). From four times the size the fringe is a quarter of a pixel's weight;
    ///   decoding whole always would cost a source's memory for a thumbnail (400 MB at the
    ///   pixel limit). Lossless images libwebp premultiplies itself. A format not yet known
    ///   (0, while the header arrives) counts as lossy.
    /// - Without ``ImageCoderOptions/resamplesToThumbnailSize`` the caller resamples the
    ///   result itself: libwebp then shrinks to twice `stored` at most, leaving the final
    ///   ratio to one Lanczos pass (libvips leaves a factor of two the same way).
    static func scaledDecodeSize(source: ImageSize, stored: ImageSize, features: WebPBitstreamFeatures, options: ImageCoderOptions) -> ImageSize {
        let isLossless = features.format == 2
        let margin = features.has_alpha != 0 && !isLossless ? 4 : options.resamplesToThumbnailSize ? 1 : 2
        return DecodeGeometry.shrinkLeaving(margin, of: stored, from: source)
    }

    /// Runs `body` with a demuxer over the whole file, or returns `nil` when the file does
    /// not parse completely (a still image cut short fails its decode anyway).
    static func withDemuxer<R>(_ bytes: UnsafeRawBufferPointer, _ body: (OpaquePointer) -> R?) -> R? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var data = WebPData(bytes: base, size: bytes.count)
        guard let demuxer = WebPDemux(&data) else { return nil }
        defer { WebPDemuxDelete(demuxer) }
        return body(demuxer)
    }

    /// The profile in the file's `ICCP` chunk, if it holds a usable one.
    static func iccProfile(in demuxer: OpaquePointer) -> ColorProfile? {
        withChunk("ICCP", flag: ICCP_FLAG, in: demuxer) { ColorConversion.profile(iccBytes: UnsafeRawBufferPointer($0)) }
    }

    /// The orientation in the file's `EXIF` chunk, else in its `XMP ` chunk's
    /// `tiff:Orientation`, if either has one.
    static func fileOrientation(in demuxer: OpaquePointer) -> ImageOrientation? {
        withChunk("EXIF", flag: EXIF_FLAG, in: demuxer) { EXIFOrientationReader.orientation(inTIFF: $0) }
            // No EXIF orientation: XMP's, as Pillow's exif_transpose (and our JPEG decode) read it.
            ?? withChunk("XMP ", flag: XMP_FLAG, in: demuxer) { ImageMetadata.xmpOrientation(in: UnsafeRawBufferPointer($0)) }
    }

    /// The `EXIF` and `XMP ` chunks, read only with ``ImageCoderOptions/readsMetadata``.
    static func metadata(in demuxer: OpaquePointer, options: ImageCoderOptions) -> ImageMetadata {
        guard options.readsMetadata else { return ImageMetadata() }
        // The payloads are libwebp's, valid only inside withChunk: each is read there.
        let exif = withChunk("EXIF", flag: EXIF_FLAG, in: demuxer) {
            ImageMetadata.read(exif: UnsafeRawBufferPointer($0), xmp: nil, resetOrientation: options.applyOrientation).exif
        }
        let xmp = withChunk("XMP ", flag: XMP_FLAG, in: demuxer) {
            // Reset as the EXIF is: the decode applied XMP's orientation when EXIF had none.
            ImageMetadata.read(exif: nil, xmp: UnsafeRawBufferPointer($0), resetOrientation: options.applyOrientation).xmp
        }
        return ImageMetadata(exif: exif, xmp: xmp)
    }

    /// Runs `body` on the payload of the first `fourCC` chunk, when the header's `flag`
    /// says there is one and it is not empty; the payload is libwebp's, valid only inside.
    private static func withChunk<R>(
        _ fourCC: String,
        flag: WebPFeatureFlags,
        in demuxer: OpaquePointer,
        _ body: (UnsafeBufferPointer<UInt8>) -> R?
    ) -> R? {
        guard WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & flag.rawValue != 0 else { return nil }
        var chunk = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, fourCC, 1, &chunk) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&chunk) }
        guard let payload = chunk.chunk.bytes, chunk.chunk.size > 0 else { return nil }
        return body(UnsafeBufferPointer(start: payload, count: chunk.chunk.size))
    }
}
