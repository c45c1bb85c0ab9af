/// Rounds an image's corners and optionally draws a border inside its edge.
///
/// The image is clipped to a rounded rectangle; pixels outside it become transparent and
/// the edge is anti-aliased (each pixel keeps the fraction of its area inside the shape,
/// estimated from its centre's distance to the edge). With a border, the outer
/// ``borderWidth`` pixels of the shape take ``borderColor`` and the image shows inside,
/// clipped to the inner rounded rectangle, whose radius is smaller by the border width
/// so the band is even all round. (SDWebImage strokes a path half a pixel inside, which
/// leaves a faint gap at the edge; this draws the band flush with the edge instead.)
///
/// The radius is clamped to half the shorter side, as UIKit clamps it; so is the border,
/// which at half the shorter side fills the whole shape. A nil colour draws no border but
/// still clips the image to the inner shape, as SDWebImage does. Key:
/// `SDImageRoundCornerTransformer(<radius>,<corners>,<border width>,<#aarrggbb or (null)>)`.
/// Immutable and thread-safe.
///
/// ```swift
/// let avatar = try RoundCornerTransformer(radius: 32, borderWidth: 2, borderColor: .white).transform(image)
/// ```
public struct RoundCornerTransformer: PixelTransformer {
    /// The corner radius in pixels.
    public let radius: Double
    /// The corners to round; the others stay square.
    public let corners: RectCorner
    /// The border's width in pixels; 0 for none.
    public let borderWidth: Double
    /// The border's colour; nil for none.
    public let borderColor: RGBAColor?

    /// Creates a corner rounding. Negative or non-finite sizes count as 0.
    public init(radius: Double, corners: RectCorner = .allCorners, borderWidth: Double = 0, borderColor: RGBAColor? = nil) {
        self.radius = radius
        self.corners = corners
        self.borderWidth = borderWidth
        self.borderColor = borderColor
    }

    public var key: String {
        let color = borderColor.map(TransformerKey.color) ?? "(null)"
        return "SDImageRoundCornerTransformer(\(TransformerKey.number(radius)),\(corners.rawValue),\(TransformerKey.number(borderWidth)),\(color))"
    }

    public func transform(pixels: PixelBuffer) throws -> PixelBuffer {
        let w = Double(pixels.width), h = Double(pixels.height)
        let half = min(w, h) / 2
        let r = radius.isFinite ? min(max(radius, 0), half) : 0
        let border = borderWidth.isFinite ? min(max(borderWidth, 0), half) : 0
        let outer = RoundedRect(left: 0, top: 0, right: w, bottom: h, radius: r, corners: corners)
        let inner = RoundedRect(
            left: border, top: border, right: w - border, bottom: h - border,
            radius: max(0, r - border), corners: corners
        )
        let band = borderColor.map { color in
            let k = Float(color.alpha) / 255
            return SIMD4<Float>(Float(color.red) * k, Float(color.green) * k, Float(color.blue) * k, Float(color.alpha))
        } ?? SIMD4<Float>()
        var out = pixels
        out.bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            // Only pixels within the corner radius or the border (plus the one-pixel ramp)
            // of an edge can change; rows in between touch just their two ends.
            let margin = Int(max(r, border).rounded(.up)) + 1
            let width = pixels.width, height = pixels.height
            for y in 0..<height {
                let cy = Double(y) + 0.5
                let nearTopOrBottom = y < margin || y >= height - margin
                let columns = nearTopOrBottom || 2 * margin >= width
                    ? [0..<width] : [0..<margin, (width - margin)..<width]
                for x in columns.joined() {
                    let cx = Double(x) + 0.5
                    let outerCover = outer.coverage(x: cx, y: cy)
                    let innerCover = border > 0 ? inner.coverage(x: cx, y: cy) : outerCover
                    // Wholly inside and no border here: the pixel stays as it is.
                    guard innerCover < 1 else { continue }
                    let index = y * width + x
                    let value = Resampler.premultiplied(base, index) * Float(innerCover) + band * Float(outerCover - innerCover)
                    Resampler.store(value, to: base + index * 4)
                }
            }
        }
        return out
    }
}

/// A rectangle with some corners rounded, and the share of a pixel it covers.
struct RoundedRect {
    let left: Double, top: Double, right: Double, bottom: Double
    let radius: Double
    let corners: RectCorner

    /// How much of the pixel centred at (`x`, `y`) lies inside, 0–1: a one-pixel ramp on
    /// the signed distance from the centre to the edge, which is exact for edges on the
    /// pixel grid and smooth along curves.
    func coverage(x: Double, y: Double) -> Double {
        guard right > left, bottom > top else { return 0 }
        var distance = max(left - x, x - right, top - y, y - bottom)
        if radius > 0 {
            let nearLeft = x < left + radius, nearRight = x > right - radius
            let nearTop = y < top + radius, nearBottom = y > bottom - radius
            let corner: (RectCorner, Double, Double)? =
                if nearLeft && nearTop { (.topLeft, left + radius, top + radius) }
                else if nearRight && nearTop { (.topRight, right - radius, top + radius) }
                else if nearLeft && nearBottom { (.bottomLeft, left + radius, bottom - radius) }
                else if nearRight && nearBottom { (.bottomRight, right - radius, bottom - radius) }
                else { nil }
            if let (which, cx, cy) = corner, corners.contains(which) {
                distance = ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot() - radius
            }
        }
        return min(1, max(0, 0.5 - distance))
    }
}

/// Which corners of a rectangle to round: SDWebImage's `SDRectCorner` (UIKit's `UIRectCorner`).
///
/// ```swift
/// let top: RectCorner = [.topLeft, .topRight]
/// ```
public struct RectCorner: OptionSet, Sendable, Hashable {
    public let rawValue: UInt

    /// Creates a set of corners from its bits (1 top-left, 2 top-right, 4 bottom-left, 8 bottom-right).
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// The top-left corner (1).
    public static let topLeft = RectCorner(rawValue: 1 << 0)
    /// The top-right corner (2).
    public static let topRight = RectCorner(rawValue: 1 << 1)
    /// The bottom-left corner (4).
    public static let bottomLeft = RectCorner(rawValue: 1 << 2)
    /// The bottom-right corner (8).
    public static let bottomRight = RectCorner(rawValue: 1 << 3)
    /// All four corners (15; UIKit's is all bits set, which keys would print differently).
    public static let allCorners: RectCorner = [.topLeft, .topRight, .bottomLeft, .bottomRight]
}
