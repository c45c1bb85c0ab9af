/// The last steps every decoder shares: resize to the size the options ask for, then
/// turn upright by the EXIF orientation.
///
/// Resizing happens before orienting because it shrinks the buffer that then has to be
/// rotated. Decoders that can decode smaller natively (JPEG's DCT scaling, WebP's scaled
/// decode) hand over their already-reduced pixels, and only the remaining step runs here.
enum DecodedFrameFinisher {
    /// The size the final, upright pixels should have for a source of `sourceSize`
    /// (as stored, before orientation).
    static func targetSize(
        sourceSize: ImageSize,
        orientation: ImageOrientation,
        frameCount: Int,
        options: ImageCoderOptions
    ) -> ImageSize {
        let applied: ImageOrientation = options.applyOrientation ? orientation : .up
        let upright = applied.orientedSize(sourceSize)
        return DecodeGeometry.targetSize(for: upright, frameCount: frameCount, options: options)
    }

    /// Resizes `pixels` (as stored) so that, once oriented, they measure `target`, then
    /// applies the orientation when the options ask for it.
    static func finish(
        _ pixels: PixelBuffer,
        orientation: ImageOrientation,
        target: ImageSize,
        options: ImageCoderOptions
    ) -> PixelBuffer {
        let applied: ImageOrientation = options.applyOrientation ? orientation : .up
        let storedTarget = applied.orientedSize(target)   // the swap is its own inverse
        let resized = pixels.size == storedTarget ? pixels : pixels.resized(to: storedTarget)
        return applied.apply(to: resized)
    }
}
