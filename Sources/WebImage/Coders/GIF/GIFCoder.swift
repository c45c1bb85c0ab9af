import CGIF
import Foundation

/// Decodes GIF (87a and 89a), still and animated, with giflib.
///
/// Frames are composited onto the logical screen the way browsers do it (see `GIFCanvas`),
/// so every ``ImageFrame`` is a full canvas ready to show. Timing and looping follow
/// SDWebImage: delays under 0.011 s become 0.1 s; the NETSCAPE2.0 loop count is reported as
/// stored (0 = forever) and a file without it plays once. A file cut short gives the frames
/// that arrived whole. Encoding (still or animated) is `GIFEncoder`'s: one quantised
/// global palette, optional dithering, frames cropped to what changed. GIF writes no
/// metadata whatever ``ImageCoderOptions/MetadataPolicy`` says (its XMP and ICC application
/// extensions are rarely read); pixels in a colour profile are converted to sRGB first.
///
/// Thread-safe: the coder holds no state, and every decode uses its own giflib handle.
///
/// ```swift
/// let image = try GIFCoder().decode(data, options: ImageCoderOptions())
/// print(image.frameCount, image.loopCount, image.duration)
/// ```
public struct GIFCoder: SingleFormatCoder {
    static let format = ImageFormat.gif

    /// Creates the coder.
    public init() {}

    /// Decodes every frame (or only the first with `decodeFirstFrameOnly`).
    ///
    /// Throws ``WebImageError/imageTooLarge(width:height:limit:)`` when the logical screen,
    /// or the screen times the frame count, exceeds `options.pixelLimit` (the error carries
    /// the screen size); ``WebImageError/badImageData(_:)`` for data that is not a GIF, has no
    /// whole frame, or has a frame with no colour table.
    public func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        try withCheckedBytes(of: data, unrecognised: "not a GIF (no GIF8 signature)") { bytes in
            let plan = try GIFCoder.plan(bytes, options: options)
            return try GIFCoder.composite(bytes, plan: plan, options: options)
        }
    }

    /// A ``GIFProgressiveDecoder``, which shows the image while it downloads.
    public func makeProgressiveDecoder() -> (any ProgressiveImageCoder)? {
        GIFProgressiveDecoder()
    }

    /// A ``GIFFrameSource``, which decodes the frames of a GIF as they are asked for.
    public func makeAnimatedImageCoder(for data: Data, options: ImageCoderOptions) throws -> (any AnimatedImageCoder)? {
        GIFFrameSource.canDecodeAnimation(data) ? try GIFFrameSource(animatedImageData: data, options: options) : nil
    }

    /// Encodes as GIF, animated when the image has several frames; see `GIFEncoder`.
    public func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
        try checkEncodable(format)
        return try GIFEncoder.encode(image, options: options)
    }
}

extension GIFCoder {
    /// giflib, as its header names it (giflib has no run-time version call).
    static var linkedLibrary: LinkedLibrary {
        LinkedLibrary(name: "giflib", version: "\(GIFLIB_MAJOR).\(GIFLIB_MINOR).\(GIFLIB_RELEASE)")
    }
}
