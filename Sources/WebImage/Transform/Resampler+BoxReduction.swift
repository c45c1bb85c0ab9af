extension Resampler {
    /// Premultiplied float pixels owned by the caller, who must `deallocate()` them.
    struct ReducedImage {
        let pixels: UnsafeMutableBufferPointer<SIMD4<Float>>
        let width: Int
        let height: Int
    }

    /// Averages the `factorX × factorY` boxes of `source` in reduced columns `columns`
    /// and rows `rows` into one premultiplied pixel each, reading each source byte they
    /// cover once, in order. Boxes cut by the right or bottom edge average the pixels they
    /// have, as Pillow's `Image.reduce` does. Both ranges must lie inside the reduced
    /// image (`ceil(width / factorX)` × `ceil(height / factorY)`); the result is
    /// `columns.count` × `rows.count`.
    static func boxReduce(_ source: PixelBuffer, factorX: Int, factorY: Int, columns: Range<Int>, rows: Range<Int>) -> ReducedImage {
        let sw = source.width, sh = source.height
        precondition(
            columns.lowerBound >= 0 && columns.upperBound <= (sw + factorX - 1) / factorX
                && rows.lowerBound >= 0 && rows.upperBound <= (sh + factorY - 1) / factorY,
            "boxReduce reads boxes inside the reduced image"
        )
        let rw = columns.count, rh = rows.count
        // The source pixels under the columns: from the first box's left edge to the last
        // box's right edge, cut by the image's.
        let x0 = columns.lowerBound * factorX, spanWidth = min(columns.upperBound * factorX, sw) - x0
        let pixels = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: rw * rh)
        guard let outBase = pixels.baseAddress else {
            preconditionFailure("allocation of a non-empty buffer returned nil")
        }
        source.bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            for ry in rows {
                let y0 = ry * factorY, y1 = min(y0 + factorY, sh)
                let out = outBase + (ry - rows.lowerBound) * rw
                out.initialize(repeating: SIMD4(), count: rw)
                for y in y0..<y1 {
                    let row = base + (y * sw + x0) * 4
                    if isOpaque(row, count: spanWidth) {
                        addBoxes(of: row, into: out, count: rw, factor: factorX, width: spanWidth, load: pixel)
                    } else {
                        addBoxes(of: row, into: out, count: rw, factor: factorX, width: spanWidth, load: premultiplied)
                    }
                }
                let rowCount = Float(y1 - y0)
                for rx in 0..<rw {
                    let columnCount = Float(min(factorX, spanWidth - rx * factorX))
                    out[rx] *= 1 / (rowCount * columnCount)
                }
            }
        }
        return ReducedImage(pixels: pixels, width: rw, height: rh)
    }

    /// Adds the sums of each run of `factor` pixels of one source row to `out`.
    @inline(__always)
    private static func addBoxes(
        of row: UnsafeRawPointer,
        into out: UnsafeMutablePointer<SIMD4<Float>>,
        count: Int,
        factor: Int,
        width: Int,
        load: (UnsafeRawPointer, Int) -> SIMD4<Float>
    ) {
        for rx in 0..<count {
            let x0 = rx &* factor, x1 = min(x0 &+ factor, width)
            // Two sums so consecutive adds do not wait on each other.
            var a0 = SIMD4<Float>(), a1 = SIMD4<Float>()
            var x = x0
            while x &+ 2 <= x1 {
                a0 += load(row, x)
                a1 += load(row, x &+ 1)
                x &+= 2
            }
            if x < x1 { a0 += load(row, x) }
            out[rx] += a0 + a1
        }
    }
}
