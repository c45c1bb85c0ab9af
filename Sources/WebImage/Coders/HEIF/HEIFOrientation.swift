/// Maps the HEIF transform properties `irot` and `imir` (ISO/IEC 23008-12 §6.5.10, §6.5.12)
/// to the EXIF orientation that describes the same turn.
///
/// AVIF and HEIC store rotation and mirroring as item properties rather than an EXIF tag;
/// the library reports orientation in EXIF terms everywhere, so both coders share this
/// mapping. Pure and thread-safe.
///
/// ```swift
/// let orientation = HEIFOrientation.orientation(rotation: 3, mirror: nil)   // .right
/// ```
enum HEIFOrientation {
    /// The orientation for `rotation` quarter turns anti-clockwise (`irot` angle, 0–3) followed
    /// by `mirror` (`imir` mode: 0 exchanges top and bottom, 1 left and right), either absent.
    ///
    /// The spec applies rotation before mirroring and turns anti-clockwise, while EXIF names
    /// the clockwise turn needed to display: a quarter turn anti-clockwise is EXIF 8 (`left`),
    /// three quarters is EXIF 6 (`right`). The mirrored cases follow by composing the two
    /// (for example rotating anti-clockwise and then exchanging left and right maps stored
    /// pixel (x, y) to (h-1-y, w-1-x), the transverse, EXIF 7).
    static func orientation(rotation: Int?, mirror: Int?) -> ImageOrientation {
        let quarterTurns = ((rotation ?? 0) % 4 + 4) % 4
        switch (quarterTurns, mirror) {
        case (0, nil): return .up
        case (0, 1): return .upMirrored
        case (0, _): return .downMirrored
        case (1, nil): return .left
        case (1, 1): return .rightMirrored
        case (1, _): return .leftMirrored
        case (2, nil): return .down
        case (2, 1): return .downMirrored
        case (2, _): return .upMirrored
        case (3, nil): return .right
        case (3, 1): return .leftMirrored
        default: return .rightMirrored
        }
    }

    /// The orientation that undoes `orientation`: quarter turns reverse, flips and the two
    /// diagonal mirrors are their own inverse.
    static func inverse(of orientation: ImageOrientation) -> ImageOrientation {
        switch orientation {
        case .right: .left
        case .left: .right
        default: orientation
        }
    }
}
