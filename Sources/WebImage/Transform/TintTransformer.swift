/// Tints an image with a colour through a blend mode, as SDWebImage's `SDImageTintTransformer`.
///
/// The image is the destination (backdrop) and the colour the source, as in SDWebImage's
/// `sd_tintedImageWithColor:blendMode:`. The default, ``BlendMode/sourceIn``, paints the
/// colour wherever the image is opaque, keeping its shape: what SDWebImage does since 5.20
/// (before it used ``BlendMode/sourceAtop``, which also keeps the image's alpha but lets a
/// translucent colour show the image through). Blending is done on premultiplied colour in
/// floating point, per the W3C compositing rules. A fully transparent colour leaves the
/// pixels unchanged. Key: `SDImageTintTransformer(#aarrggbb,<CGBlendMode value>)`.
/// Immutable and thread-safe.
///
/// ```swift
/// let icon = try TintTransformer(color: RGBAColor(red: 255, green: 0, blue: 0)).transform(glyph)
/// ```
public struct TintTransformer: PixelTransformer {
    /// The tint colour (straight alpha).
    public let color: RGBAColor
    /// How the colour meets the image.
    public let blendMode: BlendMode

    /// Creates a tint; `blendMode` defaults to SDWebImage's ``BlendMode/sourceIn``.
    public init(color: RGBAColor, blendMode: BlendMode = .sourceIn) {
        self.color = color
        self.blendMode = blendMode
    }

    public var key: String { "SDImageTintTransformer(\(TransformerKey.color(color)),\(blendMode.rawValue))" }

    public func transform(pixels: PixelBuffer) throws -> PixelBuffer {
        guard color.alpha > 0 else { return pixels }
        let source = SIMD4<Float>(Float(color.red), Float(color.green), Float(color.blue), Float(color.alpha)) / 255
        let mode = blendMode
        var out = pixels
        out.bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            for index in 0..<(pixels.width * pixels.height) {
                let backdrop = Resampler.pixel(base, index) / 255
                let result = mode.composite(source: source, backdrop: backdrop) * 255
                Resampler.store(result, to: base + index * 4)
            }
        }
        return out
    }
}
