/// Something that turns one image into another: resize, crop, blur, or your own.
///
/// A transformer runs after decoding and before caching: the manager stores its result
/// under the original cache key plus ``key`` (SDWebImage's `image-KEY.png` form), so two
/// transformers that can give different pixels must have different keys, and one
/// transformer must give the same key in every process. The built-ins use SDWebImage's
/// key formats (see `TransformerKey`).
///
/// Implementations must be immutable values (they are shared across tasks); `transform`
/// may run on any thread, and concurrently for different images.
///
/// ```swift
/// let thumb = ResizeTransformer(size: ImageSize(width: 256, height: 256), mode: .aspectFill)
/// let rounded = try PipelineTransformer([thumb, RoundCornerTransformer(radius: 16)]).transform(image)
/// ```
public protocol ImageTransformer: Sendable {
    /// Identifies the transformation and all its parameters; stable across processes.
    var key: String { get }

    /// Returns the transformed image, with ``Image/isTransformed`` set. Built-in transformers
    /// transform every frame they are given; choose which frames with
    /// ``ImageTransformer/transform(_:animated:)``.
    func transform(_ image: Image) throws -> Image
}

extension Image {
    /// A new image with `frames` and everything else known about this one, marked as
    /// transformed. Alpha is re-checked only when the source had none: a transformer can
    /// add transparency (padding, corners) but never prove that the source's is gone.
    func transformed(into frames: [ImageFrame]) -> Image {
        let alpha = hasAlpha || frames.contains { $0.pixels.containsTransparency }
        return Image(
            frames: frames, format: format, scale: scale, loopCount: loopCount,
            orientation: orientation, hasAlpha: alpha, isThumbnail: isThumbnail,
            isTransformed: true, isIncremental: isIncremental
        )
    }
}
