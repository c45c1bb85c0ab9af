/// Mirrors an image left to right, top to bottom, or both.
///
/// Lossless: pixels are moved, never resampled. Key:
/// `SDImageFlippingTransformer(<horizontal 0|1>,<vertical 0|1>)`. Immutable and thread-safe.
///
/// ```swift
/// let mirrored = try FlipTransformer(horizontal: true).transform(image)
/// ```
public struct FlipTransformer: PixelTransformer {
    /// Mirror left to right (⇋).
    public let horizontal: Bool
    /// Mirror top to bottom (⥯).
    public let vertical: Bool

    /// Creates a flip; with neither direction the pixels are returned unchanged.
    public init(horizontal: Bool = false, vertical: Bool = false) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    public var key: String {
        "SDImageFlippingTransformer(\(TransformerKey.flag(horizontal)),\(TransformerKey.flag(vertical)))"
    }

    public func transform(pixels: PixelBuffer) throws -> PixelBuffer {
        // Both flips together are a half turn; EXIF orientations already move pixels exactly.
        switch (horizontal, vertical) {
        case (false, false): pixels
        case (true, false): ImageOrientation.upMirrored.apply(to: pixels)
        case (false, true): ImageOrientation.downMirrored.apply(to: pixels)
        case (true, true): ImageOrientation.down.apply(to: pixels)
        }
    }
}
