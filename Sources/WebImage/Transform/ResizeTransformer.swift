/// Resizes an image to a size in pixels, stretching, fitting or filling as SDWebImage's
/// `SDImageResizingTransformer` does.
///
/// The output is always exactly ``size``:
/// - ``Mode/fill`` stretches the image to the size, changing its aspect ratio if needed;
/// - ``Mode/aspectFit`` scales it to fit inside, keeping the ratio, centred on a transparent
///   canvas (the padding is transparent, as in SDWebImage);
/// - ``Mode/aspectFill`` scales it to cover the size, keeping the ratio, and keeps the
///   centre (the overflow is cropped).
///
/// Scaling uses the library's Lanczos resampler on premultiplied colour
/// (``PixelBuffer/resized(to:filter:)``). SDWebImage places the scaled image at fractional
/// coordinates; here its scaled size is rounded to whole pixels and centred with the odd
/// pixel of padding or overflow on the right and bottom. Sizes are pixels, not points:
/// ``Image/scale`` is not applied. Key: `SDImageResizingTransformer({w,h},<mode 0|1|2>)`.
/// Immutable and thread-safe.
///
/// ```swift
/// let square = try ResizeTransformer(size: ImageSize(width: 256, height: 256), mode: .aspectFill).transform(image)
/// ```
public struct ResizeTransformer: PixelTransformer {
    /// How the image's aspect ratio meets the target size: SDWebImage's `SDImageScaleMode`.
    public enum Mode: Int, Sendable, Hashable, CaseIterable {
        /// Stretch to the size exactly (`SDImageScaleModeFill`, 0).
        case fill = 0
        /// Fit inside, keeping the ratio, transparent padding (`SDImageScaleModeAspectFit`, 1).
        case aspectFit = 1
        /// Cover, keeping the ratio, centre kept (`SDImageScaleModeAspectFill`, 2).
        case aspectFill = 2
    }

    /// The output size in pixels; both sides must be positive.
    public let size: ImageSize
    /// How the aspect ratio is handled; default ``Mode/fill``, as in SDWebImage.
    public let mode: Mode

    /// Creates a resize to `size`.
    public init(size: ImageSize, mode: Mode = .fill) {
        self.size = size
        self.mode = mode
    }

    public var key: String { "SDImageResizingTransformer(\(TransformerKey.size(size)),\(mode.rawValue))" }

    public func transform(pixels: PixelBuffer) throws -> PixelBuffer {
        guard size.width > 0, size.height > 0 else {
            throw WebImageError.transformFailed("resize to \(size) has no pixels")
        }
        try TransformLimit.check(size, "resizing")
        switch mode {
        case .fill:
            return pixels.resized(to: size)
        case .aspectFit:
            let scaled = Self.scaledSize(of: pixels.size, to: size, covering: false)
            let resized = pixels.resized(to: scaled)
            guard scaled != size else { return resized }
            return resized.placed(onCanvas: size, at: ((size.width - scaled.width) / 2, (size.height - scaled.height) / 2))
        case .aspectFill:
            let scaled = Self.scaledSize(of: pixels.size, to: size, covering: true)
            let area = PixelRect(
                x: (scaled.width - size.width) / 2, y: (scaled.height - size.height) / 2,
                width: size.width, height: size.height
            )
            // Only the part that is kept is resampled: the whole scaled image follows the
            // source's aspect ratio, and a hostile 1 × 50,000 file would make it gigabytes.
            return pixels.resized(to: scaled, keeping: area)
        }
    }

    /// The source scaled by one factor to fit inside (or cover) `target`. As in SDWebImage's
    /// `SDCGRectFitWithScaleMode`, the aspect ratios pick the axis that meets the target
    /// exactly; only the other one is rounded, never below 1 pixel.
    static func scaledSize(of source: ImageSize, to target: ImageSize, covering: Bool) -> ImageSize {
        let sourceIsNarrower = Double(source.width) / Double(source.height) < Double(target.width) / Double(target.height)
        if sourceIsNarrower != covering {
            // Height limits a fit of a narrower source; width limits a cover of a wider one.
            let width = (Double(source.width) * Double(target.height) / Double(source.height)).rounded()
            return ImageSize(width: max(1, Int(min(width, Double(Int32.max)))), height: target.height)
        } else {
            let height = (Double(source.height) * Double(target.width) / Double(source.width)).rounded()
            return ImageSize(width: target.width, height: max(1, Int(min(height, Double(Int32.max)))))
        }
    }
}
