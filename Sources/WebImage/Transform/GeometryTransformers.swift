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

/// Cuts a rectangle out of an image.
///
/// The rectangle is in pixels and clipped to the image, as CoreGraphics'
/// `CGImageCreateWithImageInRect` (which SDWebImage uses) clips it; a rectangle that does
/// not overlap the image throws ``WebImageError/transformFailed(_:)``. Lossless. Key:
/// `SDImageCroppingTransformer({x,y,w,h})`. Immutable and thread-safe.
///
/// ```swift
/// let face = try CropTransformer(rect: PixelRect(x: 40, y: 20, width: 64, height: 64)).transform(image)
/// ```
public struct CropTransformer: PixelTransformer {
    /// The rectangle to keep.
    public let rect: PixelRect

    /// Creates a crop to `rect`.
    public init(rect: PixelRect) {
        self.rect = rect
    }

    public var key: String {
        let values = [rect.x, rect.y, rect.width, rect.height].map { TransformerKey.number(Double($0)) }
        return "SDImageCroppingTransformer({\(values.joined(separator: ","))})"
    }

    public func transform(pixels: PixelBuffer) throws -> PixelBuffer {
        guard let area = rect.clipped(to: pixels.size) else {
            throw WebImageError.transformFailed("crop \(rect) lies outside the \(pixels.size) image")
        }
        guard area.size != pixels.size else { return pixels }
        return pixels.copying(area)
    }
}
