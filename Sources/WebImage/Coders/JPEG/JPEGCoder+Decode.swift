import CJPEG
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension JPEGCoder {
    /// What a decode does, worked out from the header alone (before any pixel allocation).
    struct DecodePlan: Equatable {
        /// The size as stored, before orientation.
        var sourceSize: ImageSize
        /// The EXIF orientation found (``ImageOrientation/up`` when there is none).
        var orientation: ImageOrientation
        /// The orientation the decode applies: `orientation`, or `.up` when the options say not to.
        var appliedOrientation: ImageOrientation
        /// CMYK or YCCK data, which libjpeg hands out as CMYK for us to convert.
        var isCMYK: Bool
        /// Adobe's convention: CMYK stored inverted (0 = full ink).
        var isInvertedCMYK: Bool
        /// The final, upright size.
        var target: ImageSize
        /// The embedded ICC profile, when there is a usable one; for CMYK, the profile the
        /// pixels convert through (``ColorConversion/cmykProfile(embedded:options:)``).
        var colorProfile: ColorProfile?
        /// libjpeg-turbo's DCT-domain scale is `scaleNumerator / 8`.
        var scaleNumerator: Int
        /// What libjpeg outputs at that scale, as stored.
        var scaledSize: ImageSize

        /// Whether the output is smaller than the source.
        var isThumbnail: Bool { target != appliedOrientation.orientedSize(sourceSize) }
    }

    /// The decoded frame, the plan that made it, and whether libjpeg met damaged or
    /// missing data after the first rows (so part of the frame is libjpeg's grey fill).
    struct DecodedFrame {
        var pixels: PixelBuffer
        var plan: DecodePlan
        var isPartial: Bool
        /// The profile the pixels are still in (``ImageCoderOptions/keepsColorProfile``);
        /// `nil` when they are sRGB.
        var colorProfile: ColorProfile?
        /// The EXIF and XMP blocks, read only with ``ImageCoderOptions/readsMetadata``.
        var metadata = ImageMetadata()
    }

    /// The plan for `data`: reads only the header.
    func plan(for data: Data, options: ImageCoderOptions) throws -> DecodePlan {
        try Self.withDecoder(data) { decoder, header in
            try Self.makePlan(decoder, header, options: options)
        }
    }

    /// Decodes `data` to final (resized, upright) pixels.
    func decodeFrame(_ data: Data, options: ImageCoderOptions) throws -> DecodedFrame {
        try Self.withDecoder(data) { decoder, header in
            let plan = try Self.makePlan(decoder, header, options: options)
            var decoded = try Self.decodePixels(decoder, plan: plan, options: options)
            if options.readsMetadata { decoded.metadata = Self.metadata(decoder, options: options) }
            return decoded
        }
    }

    /// The smallest M in 1...8 for which libjpeg's M/8 output covers `target` on both sides
    /// and is smaller than the source. (libjpeg-turbo also offers 9/8...16/8, but a decoder
    /// never needs to scale up.) The sides round up, so below 8 pixels a reduced scale can
    /// give the full size back (4×4 at 7/8 is 4×4): that would be a coarser IDCT for
    /// nothing, up to 73 levels off on a 4×4 photo.
    ///
    /// With `powersOfTwoOnly`, only 1/8, 2/8 and 4/8: imgproxy's shrink-on-load (libvips
    /// asks libjpeg for a shrink of 8, 4 or 2), for the image server, whose one resample
    /// then starts from the pixels imgproxy's starts from.
    static func scaleNumerator(for source: ImageSize, covering target: ImageSize, powersOfTwoOnly: Bool = false) -> Int {
        for numerator in 1..<8 where !powersOfTwoOnly || numerator & (numerator - 1) == 0 {
            let scaled = scaledSize(source, numerator: numerator)
            if scaled.width >= target.width, scaled.height >= target.height, scaled != source { return numerator }
        }
        return 8
    }

    /// The size the DCT shrink must cover for a final size of `target` (as stored).
    ///
    /// A thumbnail leaves a factor of two for the Lanczos pass that follows, as Pillow's
    /// `thumbnail` (`reducing_gap=2`) and libvips's `thumbnail` do: libjpeg's 1/8 scale is
    /// an 8 × 8 box average, so a shrink straight to the target (4000 × 3000 to 500 × 375
    /// at exactly 1/8, with no resample after it) lets detail just beyond the output's
    /// resolution through as moiré on fabric, brick and screens. Not when the doubled size
    /// would break a scale-down limit, which bounds memory (a limit smaller than the box's
    /// size always does), nor for the image server (without
    /// ``ImageCoderOptions/resamplesToThumbnailSize``), which shrinks by imgproxy's rule.
    static func shrinkTarget(for target: ImageSize, options: ImageCoderOptions) -> ImageSize {
        guard options.resamplesToThumbnailSize, options.thumbnailPixelSize != nil else { return target }
        let doubled = ImageSize(width: target.width * 2, height: target.height * 2)
        if let limit = options.scaleDownLimitBytes, limit > 0,
           DecodeGeometry.scaledDown(doubled, limitBytes: limit, frameCount: 1) != doubled { return target }
        return doubled
    }

    /// libjpeg's output size at scale `numerator / 8`: each side rounded up.
    static func scaledSize(_ source: ImageSize, numerator: Int) -> ImageSize {
        ImageSize(width: (source.width * numerator + 7) / 8, height: (source.height * numerator + 7) / 8)
    }

    // MARK: - Steps

    /// Runs `body` with a decoder that has read the header of `data`; frees it afterwards.
    private static func withDecoder<T>(
        _ data: Data,
        _ body: (OpaquePointer, cjpeg_header) throws -> T
    ) throws -> T {
        guard !data.isEmpty else { throw WebImageError.badImageData("empty data") }
        // jpeg_mem_src reads the caller's bytes in place, so all decoding happens in here.
        return try data.withUnsafeBytes { raw in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else {
                throw WebImageError.badImageData("empty data")
            }
            guard let decoder = cjpeg_decoder_new() else {
                throw WebImageError.badImageData("libjpeg could not allocate a decoder")
            }
            defer { cjpeg_reader_free(decoder) }
            var header = cjpeg_header()
            guard cjpeg_decoder_read_header(decoder, base, raw.count, &header) == 0 else {
                throw failure(decoder)
            }
            return try body(decoder, header)
        }
    }

    private static func makePlan(_ decoder: OpaquePointer, _ header: cjpeg_header, options: ImageCoderOptions) throws -> DecodePlan {
        let width = Int(header.width), height = Int(header.height)
        try DecodeGeometry.checkPixelLimit(width: width, height: height, options: options)
        let isCMYK: Bool
        switch header.jpeg_color_space {
        case JCS_YCbCr, JCS_RGB, JCS_GRAYSCALE: isCMYK = false
        case JCS_CMYK, JCS_YCCK: isCMYK = true
        default: throw WebImageError.unsupportedFormat(.jpeg)   // 2 or 5+ components
        }
        let source = ImageSize(width: width, height: height)
        let orientation = orientation(decoder)
        let applied: ImageOrientation = options.applyOrientation ? orientation : .up
        let target = DecodeGeometry.targetSize(sourceSize: source, orientation: orientation, frameCount: 1, options: options)
        // Scale in stored orientation: a 90° orientation swaps which side must cover which.
        let numerator = scaleNumerator(for: source, covering: shrinkTarget(for: applied.orientedSize(target), options: options),
                                       powersOfTwoOnly: !options.resamplesToThumbnailSize)
        return DecodePlan(
            sourceSize: source,
            orientation: orientation,
            appliedOrientation: applied,
            isCMYK: isCMYK,
            isInvertedCMYK: isCMYK && header.saw_adobe_marker != 0,
            target: target,
            colorProfile: isCMYK
                ? ColorConversion.cmykProfile(embedded: iccProfile(decoder), options: options)
                : profile(iccProfile(decoder), grey: header.jpeg_color_space == JCS_GRAYSCALE),
            scaleNumerator: numerator,
            scaledSize: scaledSize(source, numerator: numerator)
        )
    }

    /// The profile of a YCbCr, RGB or grey JPEG's pixels: a grey profile only describes a
    /// grey JPEG (Skia keeps the same rule). On a colour one it is a mis-tagging, and its
    /// table, read from the red channel, would turn the picture grey.
    static func profile(_ embedded: ColorProfile?, grey: Bool) -> ColorProfile? {
        guard let embedded, embedded.colorSpace != .gray || grey else { return nil }
        return embedded
    }

    private static func decodePixels(_ decoder: OpaquePointer, plan: DecodePlan, options: ImageCoderOptions) throws -> DecodedFrame {
        var width: UInt32 = 0, height: UInt32 = 0
        var components: Int32 = 0
        let space = plan.isCMYK ? JCS_CMYK : JCS_EXT_RGBA
        guard cjpeg_decoder_start(decoder, space, UInt32(plan.scaleNumerator), &width, &height, &components) == 0 else {
            throw failure(decoder)
        }
        let scaled = ImageSize(width: Int(width), height: Int(height))
        guard components == 4, scaled.pixelCount > 0, scaled.width <= plan.sourceSize.width,
              scaled.height <= plan.sourceSize.height
        else {
            throw WebImageError.badImageData("libjpeg produced an unexpected \(scaled) output of \(components) components")
        }
        // The flips and the 180° turn cost nothing while rows are placed, so when no resize
        // follows they are done here instead of in a second pass over the pixels.
        let storedTarget = plan.appliedOrientation.orientedSize(plan.target)
        let orientInPlace = scaled == storedTarget && [.upMirrored, .down, .downMirrored].contains(plan.appliedOrientation)
        let bottomUp = orientInPlace && plan.appliedOrientation != .upMirrored
        let mirrorRows = orientInPlace && plan.appliedOrientation != .downMirrored

        // CMYK becomes RGB band by band through its profile, or by Pillow's formula when
        // there is none (or Little CMS cannot use it).
        let cmykTransform = plan.isCMYK ? ColorConversion.cmykTransform(plan.colorProfile, inverted: plan.isInvertedCMYK, options: options) : nil
        // With no resize to follow, RGB converts to sRGB band by band too, while the rows are
        // in cache (and, for a large image, on another core while libjpeg decodes the next
        // band). A resize converts afterwards instead, so a thumbnail converts only its pixels.
        let bandConverter = plan.isCMYK || scaled != storedTarget ? nil
            : ColorConversion.transform(for: plan.colorProfile, options: options).map {
                ColorBandConverter(transform: $0, pixelCount: scaled.pixelCount)
            }
        var pixels = try PixelBuffer(uninitializedWidth: scaled.width, height: scaled.height) { buffer in
            guard let base = buffer.baseAddress else { throw WebImageError.badImageData("empty output") }
            // Before the buffer is returned or freed on an error: no band may still be converting.
            defer { bandConverter?.finish() }
            let rowBytes = scaled.width * 4
            let firstRow = bottomUp ? base + (scaled.height - 1) * rowBytes : base
            // A band at a time, so the CMYK conversion and the mirroring touch rows while
            // they are still in cache.
            var done = 0
            while done < scaled.height {
                var count: UInt32 = 0
                guard cjpeg_decoder_read_rows(decoder, firstRow, bottomUp ? -rowBytes : rowBytes, 64, &count) == 0 else {
                    throw failure(decoder)
                }
                let rows = Int(count)
                guard rows > 0 else { throw WebImageError.badImageData("libjpeg ended before the last row") }
                let top = bottomUp ? scaled.height - done - rows : done
                let band = UnsafeMutableBufferPointer(rebasing: buffer[top * rowBytes..<(top + rows) * rowBytes])
                if let cmykTransform {
                    cmykTransform.convert(band)
                } else if plan.isCMYK {
                    ColorConversion.convertNaiveCMYK(band, inverted: plan.isInvertedCMYK)
                }
                if mirrorRows { mirrorEachRow(band, width: scaled.width) }
                bandConverter?.convert(band)
                done += rows
            }
        }
        let isPartial = cjpeg_decoder_damage_warnings(decoder) > 0
        if !orientInPlace {
            pixels = DecodeGeometry.finish(pixels, orientation: plan.orientation, target: plan.target, options: options)
        }
        let kept = plan.isCMYK || bandConverter != nil ? nil : ColorConversion.apply(plan.colorProfile, to: &pixels, options: options)
        return DecodedFrame(pixels: pixels, plan: plan, isPartial: isPartial, colorProfile: kept)
    }

    /// The ICC profile in the file's APP2 markers, if they hold a usable one.
    private static func iccProfile(_ decoder: OpaquePointer) -> ColorProfile? {
        var bytes: UnsafeMutablePointer<UInt8>?
        let count = cjpeg_decoder_icc_profile(decoder, &bytes)
        guard let bytes else { return nil }
        defer { free(bytes) }
        return ColorConversion.profile(iccBytes: UnsafeRawBufferPointer(start: bytes, count: count))
    }

    private static func mirrorEachRow(_ buffer: UnsafeMutableBufferPointer<UInt8>, width: Int) {
        buffer.withMemoryRebound(to: UInt32.self) { pixels in
            var start = 0
            while start < pixels.count {
                var row = UnsafeMutableBufferPointer(rebasing: pixels[start..<start + width])
                row.reverse()
                start += width
            }
        }
    }

    /// The error for a failed call on `reader` (one-shot or incremental), with libjpeg's message.
    static func failure(_ reader: OpaquePointer) -> WebImageError {
        let message = String(cString: cjpeg_reader_message(reader))
        return .badImageData(message.isEmpty ? "libjpeg failed" : message)
    }
}
