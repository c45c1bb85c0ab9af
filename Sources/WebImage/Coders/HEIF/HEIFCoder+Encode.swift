import CHEIF
import Foundation

/// HEIC encoding through libheif's HEVC encoder (x265 in Debian's libheif), where the
/// installed library has one. One frame: libheif 1.15 writes no image sequences, so an
/// animation is stored as its first frame, as JPEG does. The profile, EXIF and XMP are
/// written as ``ImageCoderOptions/MetadataPolicy`` says.
extension HEIFCoder {
    /// Whether the linked libheif can encode HEVC; looked up once.
    static let encoderAvailable: Bool = {
        _ = libraryInitialised
        return heif_have_encoder_for_format(heif_compression_HEVC) != 0
    }()

    /// Encodes the first frame as HEIC at `options.compressionQuality` (or losslessly),
    /// scaled to `maxPixelSize` and searched down to `maxFileSize` like every encoder.
    /// Alpha is kept when the image has transparent pixels.
    public func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
        guard format == .heic else { throw WebImageError.unsupportedFormat(format) }
        guard HEIFCoder.encoderAvailable else { throw WebImageError.encodingFailed("libheif has no HEVC encoder") }
        let (frames, metadata) = EncodedMetadata.prepare(
            [EncodeConstraints.prepareFirstFrame(image, options: options)], of: image, options: options)
        let pixels = frames[0].pixels
        let withAlpha = image.hasAlpha && pixels.containsTransparency
        if options.lossless {
            let exact = try encode(pixels, quality: nil, alpha: withAlpha, metadata: metadata)
            guard let limit = options.maxFileSize, exact.count > limit else { return exact }
        }
        return try EncodeConstraints.fitFileSize(options: options) { quality in
            try encode(pixels, quality: quality, alpha: withAlpha, metadata: metadata)
        }
    }

    /// One encode pass: lossy at `quality` (0...1), or lossless when `nil`, with the
    /// profile in the `colr` box and EXIF and XMP in items of their own.
    private func encode(_ pixels: PixelBuffer, quality: Double?, alpha: Bool, metadata: EncodedMetadata) throws -> Data {
        guard let context = heif_context_alloc() else { throw WebImageError.encodingFailed("libheif could not create a context") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try Self.checkEncoding(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "finding the HEVC encoder")
        guard let encoder else { throw WebImageError.encodingFailed("libheif returned no encoder") }
        defer { heif_encoder_release(encoder) }
        if let quality {
            try Self.checkEncoding(heif_encoder_set_lossy_quality(encoder, Int32((quality * 100).rounded())), "setting the quality")
        } else {
            try Self.checkEncoding(heif_encoder_set_lossless(encoder, 1), "asking for lossless")
        }
        let image = try Self.heifImage(from: pixels, alpha: alpha)
        defer { heif_image_release(image) }
        if let profile = metadata.colorProfile {
            // libheif copies the bytes; "prof" is a restricted ICC profile's `colr` type.
            try profile.bytes.withUnsafeBytes { icc in
                try Self.checkEncoding(heif_image_set_raw_color_profile(image, "prof", icc.baseAddress, icc.count), "adding the profile")
            }
        }
        var handle: OpaquePointer?
        try Self.checkEncoding(heif_context_encode_image(context, image, encoder, nil, &handle), "encoding")
        defer { heif_image_handle_release(handle) }
        if let handle {
            // libheif copies each block and puts the TIFF header's offset before the EXIF.
            if let exif = metadata.exif {
                try [UInt8](exif).withUnsafeBytes { bytes in
                    try Self.checkEncoding(
                        heif_context_add_exif_metadata(context, handle, bytes.baseAddress, Int32(clamping: bytes.count)), "adding EXIF")
                }
            }
            if let xmp = metadata.xmp {
                try [UInt8](xmp).withUnsafeBytes { bytes in
                    try Self.checkEncoding(
                        heif_context_add_XMP_metadata(context, handle, bytes.baseAddress, Int32(clamping: bytes.count)), "adding XMP")
                }
            }
        }

        var output = Data()
        var writer = heif_writer(writer_api_version: 1) { _, bytes, count, userdata in
            if let bytes, let userdata {
                userdata.assumingMemoryBound(to: Data.self).pointee.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
            }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        try withUnsafeMutablePointer(to: &output) { target in
            try Self.checkEncoding(heif_context_write(context, &writer, target), "writing")
        }
        guard !output.isEmpty else { throw WebImageError.encodingFailed("libheif produced no data") }
        return output
    }

    /// A libheif image holding `pixels` (RGBA, or RGB without `alpha`); the caller releases it.
    private static func heifImage(from pixels: PixelBuffer, alpha: Bool) throws -> OpaquePointer {
        var image: OpaquePointer?
        let chroma = alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        try checkEncoding(heif_image_create(Int32(pixels.width), Int32(pixels.height), heif_colorspace_RGB, chroma, &image), "creating an image")
        guard let image else { throw WebImageError.encodingFailed("libheif returned no image") }
        do {
            try checkEncoding(heif_image_add_plane(image, heif_channel_interleaved, Int32(pixels.width), Int32(pixels.height), 8), "adding a plane")
            var stride: Int32 = 0
            let channels = alpha ? 4 : 3
            guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride), Int(stride) >= pixels.width * channels else {
                throw WebImageError.encodingFailed("libheif gave no interleaved plane")
            }
            pixels.bytes.withUnsafeBufferPointer { source in
                guard let source = source.baseAddress else { return }
                for row in 0..<pixels.height {
                    let from = source + row * pixels.bytesPerRow
                    let to = plane + row * Int(stride)
                    if alpha {
                        to.update(from: from, count: pixels.bytesPerRow)
                    } else {
                        for x in 0..<pixels.width {
                            to[x * 3] = from[x * 4]
                            to[x * 3 + 1] = from[x * 4 + 1]
                            to[x * 3 + 2] = from[x * 4 + 2]
                        }
                    }
                }
            }
            return image
        } catch {
            heif_image_release(image)
            throw error
        }
    }

    /// ``HEIFCoder/check(_:_:failure:)`` while encoding: a failure is
    /// ``WebImageError/encodingFailed(_:)``.
    private static func checkEncoding(_ error: heif_error, _ step: String) throws(WebImageError) {
        try HEIFCoder.check(error, step, failure: WebImageError.encodingFailed)
    }
}
