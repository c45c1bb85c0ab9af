/// A transformer that works on one frame's pixels at a time; every built-in one is.
///
/// Conforming types implement ``transform(pixels:)`` and get ``ImageTransformer/transform(_:)``
/// for free: every frame of the image is transformed alike, durations and loop count are
/// kept, and ``Image/hasAlpha`` becomes true when the result has transparent pixels the
/// source did not (padding, rounded corners, a rotation's empty corners).
///
/// ```swift
/// let flipped: PixelBuffer = try FlipTransformer(horizontal: true).transform(pixels: buffer)
/// ```
public protocol PixelTransformer: ImageTransformer {
    /// Returns the transformed pixels of one frame. Thread-safe.
    func transform(pixels: PixelBuffer) throws -> PixelBuffer
}

extension PixelTransformer {
    /// Transforms every frame of `image` with ``transform(pixels:)``.
    public func transform(_ image: Image) throws -> Image {
        let frames = try image.frames.map { frame in
            ImageFrame(pixels: try transform(pixels: frame.pixels), duration: frame.duration)
        }
        return image.transformed(into: frames)
    }
}
