/// How every frame of one animation is finished: resized to `target` and turned by
/// `orientation` as `options` ask (``DecodeGeometry/finish(_:orientation:target:options:)``).
///
/// The lazy frame sources decode frames one at a time long after they worked out the
/// geometry, so each keeps this one value rather than the three it is made of.
struct FrameFinish {
    /// The orientation the file declares.
    let orientation: ImageOrientation
    /// The upright size of every finished frame.
    let target: ImageSize
    /// The decode options (whether to apply the orientation, the resize filter's inputs).
    let options: ImageCoderOptions

    /// `pixels` (one frame as stored) finished.
    func apply(to pixels: PixelBuffer) -> PixelBuffer {
        DecodeGeometry.finish(pixels, orientation: orientation, target: target, options: options)
    }
}
