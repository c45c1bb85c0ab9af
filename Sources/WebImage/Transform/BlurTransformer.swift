/// Blurs an image with a Gaussian of a given standard deviation, in time independent of
/// the radius.
///
/// The radius is the Gaussian's standard deviation in pixels, as in SDWebImage's
/// `SDImageBlurTransformer` and Pillow's `GaussianBlur`. The Gaussian is approximated, as
/// Pillow does, by three passes of an extended box filter (Gwosdek et al., 2011: a box
/// with fractional end weights, so the variance is exact for any radius) along each axis;
/// each pass is a running sum, so the cost is O(pixels) at any radius. Colour is filtered
/// premultiplied, so transparent pixels do not darken their neighbours; pixels beyond the
/// edges repeat the edge. Radii up to 10⁻⁶ return the pixels unchanged (SDWebImage's
/// `FLT_EPSILON` test); radii beyond 10⁶ act as 10⁶. Key: `SDImageBlurTransformer(<radius>)`.
/// Immutable and thread-safe.
///
/// ```swift
/// let backdrop = try BlurTransformer(radius: 20).transform(image)
/// ```
public struct BlurTransformer: PixelTransformer {
    /// The Gaussian's standard deviation in pixels.
    public let radius: Double

    /// Creates a blur of standard deviation `radius` pixels.
    public init(radius: Double) {
        self.radius = radius
    }

    public var key: String { "SDImageBlurTransformer(\(TransformerKey.number(radius)))" }

    public func transform(pixels: PixelBuffer) throws -> PixelBuffer {
        guard !radius.isNaN else { throw WebImageError.transformFailed("blur radius is not a number") }
        guard radius > 1e-6 else { return pixels }
        return BoxBlur(sigma: min(radius, 1e6)).blur(pixels)
    }
}
