/// How stored pixels must be turned to appear upright: EXIF's orientation tag (values 1–8).
///
/// Cameras store pixels as the sensor saw them and record the turn in EXIF. Decoders apply
/// it to the pixels by default (``ImageCoderOptions/applyOrientation``) and report it in
/// ``Image/orientation`` either way.
///
/// ```swift
/// let upright = ImageOrientation.right.apply(to: pixels)  // rotated 90° clockwise
/// ```
public enum ImageOrientation: Int, Sendable, CaseIterable, Codable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the top-left to bottom-right diagonal (transpose).
    case leftMirrored = 5
    /// 6: must be rotated 90° clockwise to display.
    case right = 6
    /// 7: mirrored along the top-right to bottom-left diagonal (transverse).
    case rightMirrored = 7
    /// 8: must be rotated 90° counter-clockwise to display.
    case left = 8

    /// The orientation for an EXIF value; anything outside 1–8 is treated as ``up``, as
    /// every major decoder does.
    public init(exifValue: Int) {
        self = ImageOrientation(rawValue: exifValue) ?? .up
    }

    /// Whether displaying swaps width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The size after orientation is applied.
    public func orientedSize(_ size: ImageSize) -> ImageSize {
        swapsDimensions ? ImageSize(width: size.height, height: size.width) : size
    }

    /// Returns `pixels` turned upright. ``up`` returns the buffer itself, without copying.
    public func apply(to pixels: PixelBuffer) -> PixelBuffer {
        guard self != .up else { return pixels }
        let w = pixels.width, h = pixels.height
        let out = orientedSize(pixels.size)
        // For each destination pixel (dx, dy) find its source (sx, sy); written as one
        // loop over source rows so reads stay sequential.
        return PixelBuffer(uninitializedWidth: out.width, height: out.height) { dst in
            pixels.bytes.withUnsafeBytes { rawSrc in
                let src = rawSrc.bindMemory(to: UInt32.self)
                dst.withMemoryRebound(to: UInt32.self) { d in
                    let ow = out.width
                    for sy in 0..<h {
                        let row = sy * w
                        for sx in 0..<w {
                            let dx: Int, dy: Int
                            switch self {
                            case .up: (dx, dy) = (sx, sy)
                            case .upMirrored: (dx, dy) = (w - 1 - sx, sy)
                            case .down: (dx, dy) = (w - 1 - sx, h - 1 - sy)
                            case .downMirrored: (dx, dy) = (sx, h - 1 - sy)
                            case .leftMirrored: (dx, dy) = (sy, sx)
                            case .right: (dx, dy) = (h - 1 - sy, sx)
                            case .rightMirrored: (dx, dy) = (h - 1 - sy, w - 1 - sx)
                            case .left: (dx, dy) = (sy, w - 1 - sx)
                            }
                            d[dy * ow + dx] = src[row + sx]
                        }
                    }
                }
            }
        }
    }
}
