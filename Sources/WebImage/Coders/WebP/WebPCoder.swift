import CWebP
import Foundation

/// Decodes and encodes WebP — lossy, lossless, with alpha, still and animated — with libwebp.
///
/// Still images decode straight into the result's storage, and thumbnails use libwebp's
/// scaled decode, so a thumbnail never exists at full size. Animations decode through
/// libwebp's animation decoder, which composites each frame onto the canvas; a file cut
/// short gives the frames that arrived whole. The EXIF chunk's orientation (else the XMP
/// chunk's `tiff:Orientation`, as Pillow reads it) is read and, by default, applied; ``ImageCoderOptions/readsMetadata`` keeps it and the `XMP ` chunk.
/// Encoding is lossy at `compressionQuality` or lossless with `options.lossless`;
/// animations keep their frame durations and loop count; the profile (`ICCP`), EXIF and
/// XMP are written as ``ImageCoderOptions/MetadataPolicy`` says, through libwebp's muxer.
///
/// Thread-safe: the coder holds no state, and every call uses its own libwebp objects.
///
/// ```swift
/// let image = try WebPCoder().decode(data, options: ImageCoderOptions())
/// let webp = try WebPCoder().encode(image, as: .webp, options: ImageCoderOptions())
/// ```
public struct WebPCoder: SingleFormatCoder {
    static let format = ImageFormat.webp

    /// Creates the coder.
    public init() {}

    /// Decodes a still image, or an animation's frames (only the first with
    /// `decodeFirstFrameOnly`).
    ///
    /// Throws ``WebImageError/imageTooLarge(width:height:limit:)`` when the canvas, or the
    /// canvas times the frame count, exceeds `options.pixelLimit` (the error carries the
    /// canvas size); ``WebImageError/badImageData(_:)`` for data that is not WebP, a still
    /// image cut short, or an animation without one whole frame.
    public func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        try withCheckedBytes(of: data, unrecognised: "not a WebP (no RIFF/WEBP header)") { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                throw WebImageError.badImageData("empty data")
            }
            var features = WebPBitstreamFeatures()
            let status = WebPGetFeatures(base, bytes.count, &features)
            guard status == VP8_STATUS_OK else {
                throw WebImageError.badImageData("WebP header: \(WebPCoder.describe(status))")
            }
            try DecodeGeometry.checkPixelLimit(width: Int(features.width), height: Int(features.height), options: options)
            if features.has_animation != 0 {
                return try WebPCoder.decodeAnimation(bytes, hasAlpha: features.has_alpha != 0, options: options)
            }
            return try WebPCoder.decodeStill(bytes, features: features, options: options)
        }
    }

    /// A ``WebPProgressiveDecoder``, which shows the image while it downloads.
    public func makeProgressiveDecoder() -> (any ProgressiveImageCoder)? {
        WebPProgressiveDecoder()
    }

    /// A ``WebPFrameSource`` for an animated WebP (a still WebP is decoded whole).
    public func makeAnimatedImageCoder(for data: Data, options: ImageCoderOptions) throws -> (any AnimatedImageCoder)? {
        WebPFrameSource.canDecodeAnimation(data) ? try WebPFrameSource(animatedImageData: data, options: options) : nil
    }

    /// Encodes one frame as a still WebP, or several (unless `encodeFirstFrameOnly`) as an
    /// animation with the image's durations and loop count.
    ///
    /// Lossy output searches on quality to meet `maxFileSize`. Lossless output is tried
    /// first when asked for; if it exceeds `maxFileSize`, the lossy search is used instead.
    public func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
        try checkEncodable(format)
        let (frames, metadata) = EncodedMetadata.prepare(
            EncodeConstraints.prepare(image, options: options), of: image, options: options)
        let encode: (Double, Bool) throws -> Data = { quality, lossless in
            let webp = frames.count == 1
                ? try WebPCoder.encodeStill(frames[0].pixels, quality: quality, lossless: lossless)
                : try WebPCoder.encodeAnimation(frames, loopCount: image.loopCount, quality: quality, lossless: lossless)
            // Inside the size search, so the metadata's bytes count against maxFileSize.
            guard !metadata.isEmpty else { return webp }
            return try WebPCoder.embedding(metadata, in: webp)
        }
        if options.lossless {
            let lossless = try encode(options.compressionQuality, true)
            if let limit = options.maxFileSize, lossless.count > limit {
                return try EncodeConstraints.fitFileSize(options: options) { try encode($0, false) }
            }
            return lossless
        }
        return try EncodeConstraints.fitFileSize(options: options) { try encode($0, false) }
    }

    /// libwebp's status codes in words, for error messages.
    static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OK: "ok"
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "corrupt bitstream"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_SUSPENDED: "suspended"
        case VP8_STATUS_USER_ABORT: "aborted"
        case VP8_STATUS_NOT_ENOUGH_DATA: "truncated data"
        default: "libwebp status \(status.rawValue)"
        }
    }
}

extension WebPCoder {
    /// libwebp's decoder, as the loaded library reports itself (0xMMmmpp packed).
    static var linkedLibrary: LinkedLibrary {
        let packed = WebPGetDecoderVersion()
        return LinkedLibrary(name: "libwebp", version: "\(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)")
    }
}
