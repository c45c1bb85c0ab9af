import CAVIF
import Foundation

extension AVIFCoder {
    /// Encodes `image` as AVIF: a still for one frame, an `avis` sequence for several (libavif
    /// 0.11 cannot record a loop count; players loop sequences forever).
    ///
    /// `compressionQuality` maps linearly onto AV1's quantizer (1 → 0, best; 0 → 63, worst),
    /// colour and alpha alike, in 4:2:0 below quality 1 and 4:4:4 at quality 1. `lossless`
    /// stores RGB unchanged through the identity matrix in 4:4:4 at quantizer 0; when that
    /// exceeds `maxFileSize`, the encoder falls back to the lossy quality search.
    public func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
        guard format == .avif else { throw WebImageError.unsupportedFormat(format) }
        guard AVIFCoder.encoderAvailable else { throw WebImageError.encodingFailed("libavif has no AV1 encoder") }
        let (frames, metadata) = EncodedMetadata.prepare(
            EncodeConstraints.prepare(image, options: options), of: image, options: options)
        let withAlpha = image.hasAlpha && frames.contains { $0.pixels.containsTransparency }
        if options.lossless {
            let exact = try encode(frames, setting: .lossless, alpha: withAlpha, metadata: metadata)
            guard let limit = options.maxFileSize, exact.count > limit else { return exact }
        }
        return try EncodeConstraints.fitFileSize(options: options) { quality in
            try encode(frames, setting: .lossy(quality: quality), alpha: withAlpha, metadata: metadata)
        }
    }

    /// How one encode pass stores colour.
    private enum Setting {
        case lossless
        case lossy(quality: Double)

        var quantizer: Int32 {
            switch self {
            case .lossless: Int32(AVIF_QUANTIZER_LOSSLESS)
            case .lossy(let quality):
                Int32(((1 - quality) * Double(AVIF_QUANTIZER_WORST_QUALITY)).rounded())
            }
        }
    }

    private func encode(_ frames: [ImageFrame], setting: Setting, alpha: Bool, metadata: EncodedMetadata) throws -> Data {
        guard let encoder = avifEncoderCreate() else { throw WebImageError.encodingFailed("libavif could not create an encoder") }
        defer { avifEncoderDestroy(encoder) }
        let quantizer = setting.quantizer
        encoder.pointee.maxThreads = Int32(maxThreads)
        encoder.pointee.speed = Int32(encodeSpeed)
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
        // Durations are stored in milliseconds, the precision GIF and WebP offer too.
        encoder.pointee.timescale = 1000

        let single = frames.count == 1
        for (index, frame) in frames.enumerated() {
            guard let yuv = try AVIFCoder.yuvImage(from: frame.pixels, setting: setting, alpha: alpha) else {
                throw WebImageError.encodingFailed("libavif could not allocate a \(frame.pixels.size) image")
            }
            defer { avifImageDestroy(yuv) }
            // libavif copies the bytes: the profile into the `colr` box, EXIF and XMP into
            // items of their own. Setting EXIF also sets `irot`/`imir` from its orientation,
            // which is 1 once a decoder turned the pixels upright, and right otherwise.
            if let profile = metadata.colorProfile {
                profile.bytes.withUnsafeBufferPointer { avifImageSetProfileICC(yuv, $0.baseAddress, $0.count) }
            }
            if let exif = metadata.exif {
                [UInt8](exif).withUnsafeBufferPointer { avifImageSetMetadataExif(yuv, $0.baseAddress, $0.count) }
            }
            if let xmp = metadata.xmp {
                [UInt8](xmp).withUnsafeBufferPointer { avifImageSetMetadataXMP(yuv, $0.baseAddress, $0.count) }
            }
            let flags: avifAddImageFlags = single ? AVIF_ADD_IMAGE_FLAG_SINGLE.rawValue : AVIF_ADD_IMAGE_FLAG_NONE.rawValue
            let duration = UInt64(max(1, EncodeConstraints.milliseconds(frame.duration)))
            let result = avifEncoderAddImage(encoder, yuv, duration, flags)
            guard result == AVIF_RESULT_OK else { throw AVIFCoder.encodingError(result, encoder, "adding frame \(index)") }
        }
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let result = avifEncoderFinish(encoder, &output)
        guard result == AVIF_RESULT_OK else { throw AVIFCoder.encodingError(result, encoder, "finishing") }
        guard let bytes = output.data, output.size > 0 else { throw WebImageError.encodingFailed("libavif produced no data") }
        return Data(bytes: bytes, count: output.size)
    }

    /// A libavif image holding `pixels` converted to YUV for `setting`; the caller destroys it.
    private static func yuvImage(from pixels: PixelBuffer, setting: Setting, alpha: Bool) throws -> UnsafeMutablePointer<avifImage>? {
        let lossless: Bool
        let format: avifPixelFormat
        switch setting {
        case .lossless:
            (lossless, format) = (true, AVIF_PIXEL_FORMAT_YUV444)
        case .lossy(let quality):
            (lossless, format) = (false, quality >= 1 ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420)
        }
        guard let image = avifImageCreate(UInt32(pixels.width), UInt32(pixels.height), 8, format) else { return nil }
        image.pointee.yuvRange = AVIF_RANGE_FULL
        image.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = UInt16(
            lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601
        )
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        // An opaque image gets no alpha plane at all, which saves its bytes and decode time.
        rgb.ignoreAlpha = alpha ? AVIF_FALSE : AVIF_TRUE
        rgb.rowBytes = UInt32(pixels.bytesPerRow)
        let result = pixels.bytes.withUnsafeBufferPointer { buffer -> avifResult in
            // libavif only reads RGB input; the mutable pointer is its API's spelling.
            rgb.pixels = UnsafeMutablePointer(mutating: buffer.baseAddress)
            return avifImageRGBToYUV(image, &rgb)
        }
        guard result == AVIF_RESULT_OK else {
            avifImageDestroy(image)
            throw WebImageError.encodingFailed("AVIF colour conversion failed: \(String(cString: avifResultToString(result)))")
        }
        return image
    }

    private static func encodingError(_ result: avifResult, _ encoder: UnsafeMutablePointer<avifEncoder>, _ step: String) -> WebImageError {
        WebImageError.encodingFailed("AVIF \(step) failed: \(AVIFCoder.reason(result, encoder.pointee.diag))")
    }
}
