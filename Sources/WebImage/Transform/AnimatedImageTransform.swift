/// Which frames of an animated image a transformer touches.
///
/// Transforming a long animation costs a full transform per frame, so by default only the
/// poster frame is transformed, giving a still image; ``everyFrame`` is what the manager's
/// `transformAnimatedImage` option asks for. SDWebImage without that option leaves an
/// animated image untransformed altogether; ``untouched`` gives that behaviour.
///
/// ```swift
/// let still = try blur.transform(gif, animated: .posterFrame)   // one frame, blurred
/// let all = try blur.transform(gif, animated: .everyFrame)      // every frame blurred
/// ```
public enum AnimatedImageTransform: Sendable, Hashable {
    /// Transform the first frame only and return it as a still image (the default).
    case posterFrame
    /// Transform every frame, keeping durations and the loop count.
    case everyFrame
    /// Return an animated image unchanged (not marked as transformed), as SDWebImage does.
    case untouched
}

extension ImageTransformer {
    /// Transforms `image`, choosing what happens to an animation with `animated`. A still
    /// image is always transformed.
    public func transform(_ image: Image, animated: AnimatedImageTransform) throws -> Image {
        guard image.isAnimated else { return try transform(image) }
        switch animated {
        case .everyFrame:
            return try transform(image)
        case .untouched:
            return image
        case .posterFrame:
            let poster = Image(
                frames: [ImageFrame(pixels: image.pixels)], format: image.format, scale: image.scale,
                orientation: image.orientation, hasAlpha: image.hasAlpha, isThumbnail: image.isThumbnail,
                isIncremental: image.isIncremental
            )
            return try transform(poster)
        }
    }
}
