/// How every frame of one animation is finished: resized to `target` and turned by
/// `orientation` as `options` ask (``DecodeGeometry/finish(_:orientation:target:options:)``),
/// then converted from `colorProfile` to sRGB (``ColorConversion``).
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
    /// The animation's colour profile, when the file has one. The frames are converted
    /// from it to sRGB even with ``ImageCoderOptions/keepsColorProfile``: a lazy animation
    /// has no ``Image/colorProfile`` to hand the profile on in, and pixels kept in the
    /// source's space without it were shown (and encoded) with the wrong colours.
    var colorProfile: ColorProfile?

    /// `pixels` (one frame as stored) finished.
    func apply(to pixels: PixelBuffer) -> PixelBuffer {
        var finished = DecodeGeometry.finish(pixels, orientation: orientation, target: target, options: options)
        var converting = options
        converting.keepsColorProfile = false
        _ = ColorConversion.apply(colorProfile, to: &finished, options: converting)
        return finished
    }
}
