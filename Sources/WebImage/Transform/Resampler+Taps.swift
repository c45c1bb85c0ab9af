import Foundation

extension Resampler {
    /// Precomputed filter weights for one axis, laid out flat so the inner loops read them
    /// sequentially: output `o` reads `width` inputs starting at `starts[o]`, weighted by
    /// `weights[o * width ..< (o + 1) * width]`.
    ///
    /// Every row has the same width; rows near an edge are shifted inwards and padded with
    /// zero weights, so the inner loops never test bounds. Starts never decrease from one
    /// output to the next, which lets the vertical pass discard rows it has passed. No row
    /// is empty: the support is at least 2 and the centre lies inside the input. Bounds and normalisation follow
    /// Pillow's `precompute_coeffs`, so results line up with Pillow's within rounding.
    struct Taps {
        /// First input index of each output.
        let starts: [Int]
        /// One row of `width` weights per computed output, each row summing to 1.
        let weights: [Float]
        /// Inputs read per output.
        let width: Int

        /// The inputs any output reads: starts never decrease, and every row is `width` long.
        var inputRange: Range<Int> {
            guard let first = starts.first, let last = starts.last else { return 0..<0 }
            return first..<last + width
        }

        /// Taps mapping `inputCount` samples, which span `inputExtent` units of the source
        /// (less than `inputCount` when the last sample of a box-reduced image is partial),
        /// onto `outputCount` samples. Only the outputs in `window` (all by default) are
        /// computed, `starts[0]` being output `window.lowerBound`'s: a crop of a resize costs
        /// what the crop has, however large the whole resized image would be.
        init(filter: ResamplingFilter, inputCount: Int, inputExtent: Double, outputCount: Int, window: Range<Int>? = nil) {
            let window = window ?? 0..<outputCount
            if inputCount == outputCount, inputExtent == Double(inputCount) {
                // Same size: Lanczos and Catmull-Rom are interpolating, so the taps would be
                // a single 1 among zeros; say so directly and make the pass a plain copy.
                starts = Array(window)
                weights = [Float](repeating: 1, count: window.count)
                width = 1
                return
            }
            let scale = inputExtent / Double(outputCount)
            let stretch = max(1, scale)   // widen the filter when shrinking, to avoid aliasing
            let support = filter.support * stretch
            var bounds = [(start: Int, weights: [Double])]()
            bounds.reserveCapacity(window.count)
            var widest = 1
            for o in window {
                let center = (Double(o) + 0.5) * scale
                let first = max(0, Int((center - support + 0.5).rounded(.down)))
                let end = min(inputCount, Int((center + support + 0.5).rounded(.down)))
                var row = [Double]()
                row.reserveCapacity(max(0, end - first))
                var total = 0.0
                for i in first..<max(first, end) {
                    let w = filter.weight((Double(i) - center + 0.5) / stretch)
                    row.append(w)
                    total += w
                }
                if total != 0 { row = row.map { $0 / total } }
                bounds.append((first, row))
                widest = max(widest, row.count)
            }
            let width = min(widest, inputCount)
            var starts = [Int](repeating: 0, count: window.count)
            var weights = [Float](repeating: 0, count: window.count * width)
            for (o, tap) in bounds.enumerated() {
                let start = min(tap.start, inputCount - width)
                starts[o] = start
                let offset = o * width + (tap.start - start)
                for (k, w) in tap.weights.enumerated() { weights[offset + k] = Float(w) }
            }
            self.starts = starts
            self.weights = weights
            self.width = width
        }
    }
}

extension ResamplingFilter {
    /// How far the kernel reaches, in input samples, at a scale of 1.
    var support: Double {
        switch self {
        case .lanczos3: 3
        case .bicubic: 2
        }
    }

    /// The kernel at distance `x` (in input samples, at a scale of 1).
    func weight(_ x: Double) -> Double {
        let x = abs(x)
        switch self {
        case .lanczos3:
            if x < 1e-9 { return 1 }
            if x >= 3 { return 0 }
            let px = Double.pi * x
            return 3 * sin(px) * sin(px / 3) / (px * px)
        case .bicubic:
            // Catmull-Rom (a = -0.5), as Pillow's BICUBIC.
            let a = -0.5
            if x < 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
            if x < 2 { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a }
            return 0
        }
    }
}
