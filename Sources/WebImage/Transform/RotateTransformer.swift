import Foundation

/// Rotates an image counter-clockwise about its centre by any angle.
///
/// The angle is in radians, counter-clockwise (⟲), as in SDWebImage's
/// `SDImageRotationTransformer` and Pillow's `rotate`; ``init(degrees:fitSize:)`` takes
/// degrees. Multiples of 90° (to within 10⁻⁹ rad) move pixels exactly, with no resampling.
/// Other angles sample the source with a Catmull-Rom bicubic filter (Pillow's `BICUBIC`) on
/// premultiplied colour; everything outside the source is transparent, and the image's
/// edges come out anti-aliased.
///
/// With ``fitSize`` the canvas grows to hold the whole rotated image: the smallest whole-pixel
/// box around the rotated corners, aligned to the source's pixel grid and centred on it
/// (Pillow's `rotate(expand=True)` size). Without it the canvas keeps the source size and the
/// corners are cut off. A quarter turn of an image whose sides differ by an odd number of
/// pixels, without ``fitSize``, sits half a pixel up and left of the exact centre, to stay
/// lossless. Key: `SDImageRotationTransformer(<radians>,<fit 0|1>)`. Immutable and thread-safe.
///
/// ```swift
/// let tilted = try RotateTransformer(degrees: 30, fitSize: true).transform(image)
/// ```
public struct RotateTransformer: PixelTransformer {
    /// The angle in radians, counter-clockwise.
    public let angle: Double
    /// Whether the canvas grows to hold the whole rotated image.
    public let fitSize: Bool

    /// Creates a rotation by `angle` radians counter-clockwise.
    public init(angle: Double, fitSize: Bool = true) {
        self.angle = angle
        self.fitSize = fitSize
    }

    /// Creates a rotation by `degrees` counter-clockwise. Whole multiples of 90 map to
    /// quarter turns exactly.
    public init(degrees: Double, fitSize: Bool = true) {
        let quarter = degrees / 90
        // Multiplying by π/180 loses the exact quarter turn; build it from π/2 instead.
        self.init(angle: quarter.rounded() == quarter ? quarter * (Double.pi / 2) : degrees * Double.pi / 180, fitSize: fitSize)
    }

    public var key: String {
        "SDImageRotationTransformer(\(TransformerKey.number(angle)),\(TransformerKey.flag(fitSize)))"
    }

    public func transform(pixels: PixelBuffer) throws -> PixelBuffer {
        guard angle.isFinite else { throw WebImageError.transformFailed("rotation angle \(angle) is not finite") }
        if let turns = quarterTurns {
            return Self.rotate(pixels, quarterTurns: turns, fitSize: fitSize)
        }
        return Self.resample(pixels, angle: angle, canvas: try canvas(for: pixels.size))
    }

    /// The canvas a turn of `size` draws on (expanded with ``fitSize``); throws
    /// ``WebImageError/transformFailed(_:)`` past `limit` pixels, before it is made.
    func canvas(for size: ImageSize, limit: Int = TransformLimit.pixelCount) throws -> ImageSize {
        let canvas = fitSize ? Self.fittedSize(of: size, angle: angle) : size
        try TransformLimit.check(canvas, "rotating by \(angle) radians", limit: limit)
        return canvas
    }

    /// 0–3 when the angle is a whole number of quarter turns, otherwise nil.
    var quarterTurns: Int? {
        let turns = angle / (Double.pi / 2)
        let whole = turns.rounded()
        guard abs(turns - whole) * (Double.pi / 2) < 1e-9, abs(whole) < 1e15 else { return nil }
        let remainder = Int(whole) % 4
        return remainder < 0 ? remainder + 4 : remainder
    }

    /// A lossless quarter turn; the EXIF orientations already move pixels exactly.
    static func rotate(_ pixels: PixelBuffer, quarterTurns: Int, fitSize: Bool) -> PixelBuffer {
        let orientation: ImageOrientation = switch quarterTurns {
        case 1: .left    // displayed turned 90° counter-clockwise
        case 2: .down
        case 3: .right
        default: .up
        }
        let turned = orientation.apply(to: pixels)
        guard !fitSize, turned.size != pixels.size else { return turned }
        let origin = ((pixels.width - turned.width) / 2, (pixels.height - turned.height) / 2)
        return turned.placed(onCanvas: pixels.size, at: origin)
    }

    /// Pillow's expanded canvas: the rotated corners' extent, rounded outwards from the
    /// source's centre. Sine and cosine are rounded to 15 decimals as Pillow does, so that
    /// a rounding error of 10⁻¹⁶ cannot add a pixel.
    static func fittedSize(of size: ImageSize, angle: Double) -> ImageSize {
        let c = abs((cos(angle) * 1e15).rounded() / 1e15), s = abs((sin(angle) * 1e15).rounded() / 1e15)
        let w = Double(size.width), h = Double(size.height)
        func extent(centre: Double, half: Double) -> Int {
            Int((centre + half).rounded(.up) - (centre - half).rounded(.down))
        }
        return ImageSize(
            width: max(1, extent(centre: w / 2, half: (w * c + h * s) / 2)),
            height: max(1, extent(centre: h / 2, half: (w * s + h * c) / 2))
        )
    }
}
