/// Whether the frames of a format that composites each frame on the last (GIF, APNG) can
/// show a transparent pixel, followed frame by frame from their rectangles and disposals
/// alone, so a lazy source's scan (which decodes no pixel) and the one-shot decode say
/// the same.
///
/// The canvas starts transparent. Besides frames with transparent pixels of their own, a
/// frame shows transparency where the canvas is still clear under it: a first frame not
/// covering the canvas, or a later frame not covering what an earlier disposal cleared
/// (GIF's disposal 2, APNG's `APNG_DISPOSE_OP_BACKGROUND`) or restored to clear (disposal
/// 3, `APNG_DISPOSE_OP_PREVIOUS`, over a clear area). Counting only the first two cases,
/// as the GIF coder used to (the PNG coder looked at the colour type alone), called such
/// animations opaque, and an encoder that trusts `hasAlpha` (AVIF, HEIF, JPEG XL; a still
/// stored as JPEG) turned their holes black.
///
/// The clear area is kept as one bounding rectangle: an opaque frame clears it only when it
/// covers all of it. That errs towards "has alpha", never away from it. A value.
struct CanvasTransparency {
    /// What happens to a frame's rectangle once it has been shown.
    enum Disposal {
        /// It stays.
        case keep
        /// It becomes transparent.
        case clear
        /// It returns to what it was before the frame was drawn.
        case restorePrevious
    }

    private struct Area: Equatable {
        var x0, y0, x1, y1: Int

        var isEmpty: Bool { x0 >= x1 || y0 >= y1 }

        func contains(_ other: Area) -> Bool {
            x0 <= other.x0 && y0 <= other.y0 && x1 >= other.x1 && y1 >= other.y1
        }

        func intersection(_ other: Area) -> Area? {
            let area = Area(x0: max(x0, other.x0), y0: max(y0, other.y0), x1: min(x1, other.x1), y1: min(y1, other.y1))
            return area.isEmpty ? nil : area
        }

        func union(_ other: Area?) -> Area {
            guard let other else { return self }
            return Area(x0: min(x0, other.x0), y0: min(y0, other.y0), x1: max(x1, other.x1), y1: max(y1, other.y1))
        }
    }

    private let canvas: Area
    /// A rectangle holding every canvas pixel that may be clear now; `nil` when none is.
    private var clear: Area?
    /// Whether any frame so far may show a transparent pixel.
    private(set) var hasAlpha = false

    /// Before frame 0 of a `width` × `height` canvas (all clear).
    init(width: Int, height: Int) {
        canvas = Area(x0: 0, y0: 0, x1: max(0, width), y1: max(0, height))
        clear = canvas.isEmpty ? nil : canvas
    }

    /// Follows one frame at (`x`, `y`), `width` × `height` (clipped to the canvas): its
    /// drawing, where `drawsTransparent` says whether it may leave or put transparent
    /// pixels of its own (a GIF transparent colour, a PNG with alpha), then its disposal.
    mutating func frame(x: Int, y: Int, width: Int, height: Int, drawsTransparent: Bool, disposal: Disposal) {
        let drawn = Area(x0: x, y0: y, x1: x + width, y1: y + height).intersection(canvas)
        let before = clear
        if drawsTransparent {
            // Its transparent pixels leave the canvas as it was, clear or not (or clear it).
            hasAlpha = true
        } else if let area = clear, let drawn, drawn.contains(area) {
            clear = nil
        }
        if clear != nil { hasAlpha = true }
        guard let drawn else { return }
        switch disposal {
        case .keep:
            break
        case .clear:
            clear = drawn.union(clear)
        case .restorePrevious:
            // The area goes back to what it was before the frame: clear where it was clear.
            if let restored = before.flatMap({ $0.intersection(drawn) }) { clear = restored.union(clear) }
        }
    }
}
