extension ColorQuantizer {
    /// Xiaolin Wu's colour quantiser ("Efficient Statistical Computations for Optimal Color
    /// Quantization", Graphics Gems II): colour moments on a 33×33×33 grid (5 bits per
    /// channel plus a zero border), made cumulative so the weight, colour sum and squared
    /// sum of any box are eight lookups, then repeated cuts of the box with the largest
    /// variance at the plane that minimises the two halves' squared error.
    ///
    /// A value owned by one palette build; not shared.
    struct WuHistogram {
        static let side = 33
        static let cells = side * side * side

        /// Per cell: pixel count, sums of R, G, B and of R²+G²+B².
        var weight = [Int](repeating: 0, count: cells)
        var sumR = [Int](repeating: 0, count: cells)
        var sumG = [Int](repeating: 0, count: cells)
        var sumB = [Int](repeating: 0, count: cells)
        var sumSquares = [Int](repeating: 0, count: cells)
        /// The raw (not cumulative) moments of the occupied cells, kept for the k-means passes.
        var occupied: [Cell] = []

        /// One occupied grid cell: its pixel count and colour sums.
        struct Cell {
            let weight: Int
            let r: Int, g: Int, b: Int
        }

        @inline(__always)
        static func index(_ r: Int, _ g: Int, _ b: Int) -> Int {
            (r * side + g) * side + b
        }

        /// `stride`, or the next larger step that shares no factor with `width`: stepping by
        /// it through the rows visits every column. A stride that divides the width (32 for
        /// 256-pixel frames) took the same few columns of every row, and colours found only
        /// in the others (thin lines, text) never reached the palette.
        static func sampling(_ stride: Int, width: Int) -> Int {
            guard stride > 1, width > 1 else { return stride }
            func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
            var step = stride
            while gcd(step, width) != 1 { step += 1 }
            return step
        }

        /// Adds the opaque pixels of `images`, every `stride`-th pixel so that at most
        /// `sampleLimit` are taken in all, then makes the moments cumulative.
        mutating func add(_ images: [PixelBuffer], sampleLimit: Int) {
            let total = images.reduce(0) { $0 + $1.width * $1.height }
            let stride = max(1, (total + sampleLimit - 1) / sampleLimit)
            weight.withUnsafeMutableBufferPointer { w in
                sumR.withUnsafeMutableBufferPointer { mr in
                    sumG.withUnsafeMutableBufferPointer { mg in
                        sumB.withUnsafeMutableBufferPointer { mb in
                            sumSquares.withUnsafeMutableBufferPointer { m2 in
                                for image in images {
                                    let stride = Self.sampling(stride, width: image.width)
                                    image.bytes.withUnsafeBufferPointer { p in
                                        var i = 0
                                        while i < p.count {
                                            if p[i + 3] >= alphaThreshold {
                                                let r = Int(p[i]), g = Int(p[i + 1]), b = Int(p[i + 2])
                                                let cell = WuHistogram.index((r >> 3) + 1, (g >> 3) + 1, (b >> 3) + 1)
                                                w[cell] += 1
                                                mr[cell] += r
                                                mg[cell] += g
                                                mb[cell] += b
                                                m2[cell] += r * r + g * g + b * b
                                            }
                                            i += 4 * stride
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            for cell in 0..<WuHistogram.cells where weight[cell] > 0 {
                occupied.append(Cell(weight: weight[cell], r: sumR[cell], g: sumG[cell], b: sumB[cell]))
            }
            accumulate()
        }

        /// Turns each table into sums over the box from the origin to the cell.
        private mutating func accumulate() {
            let side = WuHistogram.side
            for table in [\WuHistogram.weight, \.sumR, \.sumG, \.sumB, \.sumSquares] {
                self[keyPath: table].withUnsafeMutableBufferPointer { m in
                    var area = [Int](repeating: 0, count: side)
                    for r in 1..<side {
                        for k in 0..<side { area[k] = 0 }
                        for g in 1..<side {
                            var line = 0
                            for b in 1..<side {
                                let cell = WuHistogram.index(r, g, b)
                                line += m[cell]
                                area[b] += line
                                m[cell] = m[cell - side * side] + area[b]
                            }
                        }
                    }
                }
            }
        }

        /// Up to `maxColors` colours (3 bytes each): the means of the boxes cut.
        func cutPalette(maxColors: Int) -> [UInt8] {
            var boxes = [Box(r0: 0, r1: 32, g0: 0, g1: 32, b0: 0, b1: 32)]
            var variances = [0.0]
            guard volume(boxes[0], weight) > 0 else { return [] }
            var next = 0
            while boxes.count < maxColors {
                var first = boxes[next]
                if let second = cut(&first) {
                    boxes[next] = first
                    boxes.append(second)
                    variances[next] = first.cellCount > 1 ? variance(first) : 0
                    variances.append(second.cellCount > 1 ? variance(second) : 0)
                } else {
                    variances[next] = 0
                }
                guard let largest = variances.indices.max(by: { variances[$0] < variances[$1] }),
                      variances[largest] > 0 else { break }
                next = largest
            }
            var rgb: [UInt8] = []
            rgb.reserveCapacity(boxes.count * 3)
            for box in boxes {
                let w = volume(box, weight)
                guard w > 0 else { continue }
                for table in [sumR, sumG, sumB] {
                    rgb.append(UInt8(clamping: (volume(box, table) + w / 2) / w))
                }
            }
            return rgb
        }

        /// A box of grid cells: lower bounds exclusive, upper inclusive.
        struct Box {
            var r0: Int, r1: Int, g0: Int, g1: Int, b0: Int, b1: Int
            var cellCount: Int { (r1 - r0) * (g1 - g0) * (b1 - b0) }
        }

        private enum Axis { case red, green, blue }

        /// The sum of `m` over `box`, by inclusion–exclusion on the cumulative table.
        private func volume(_ box: Box, _ m: [Int]) -> Int {
            let i = WuHistogram.index
            return m[i(box.r1, box.g1, box.b1)] - m[i(box.r1, box.g1, box.b0)]
                - m[i(box.r1, box.g0, box.b1)] + m[i(box.r1, box.g0, box.b0)]
                - m[i(box.r0, box.g1, box.b1)] + m[i(box.r0, box.g1, box.b0)]
                + m[i(box.r0, box.g0, box.b1)] - m[i(box.r0, box.g0, box.b0)]
        }

        /// The terms of ``volume(_:_:)`` that do not depend on the box's upper bound on `axis`.
        private func bottom(_ box: Box, _ axis: Axis, _ m: [Int]) -> Int {
            let i = WuHistogram.index
            switch axis {
            case .red:
                return -m[i(box.r0, box.g1, box.b1)] + m[i(box.r0, box.g1, box.b0)]
                    + m[i(box.r0, box.g0, box.b1)] - m[i(box.r0, box.g0, box.b0)]
            case .green:
                return -m[i(box.r1, box.g0, box.b1)] + m[i(box.r1, box.g0, box.b0)]
                    + m[i(box.r0, box.g0, box.b1)] - m[i(box.r0, box.g0, box.b0)]
            case .blue:
                return -m[i(box.r1, box.g1, box.b0)] + m[i(box.r1, box.g0, box.b0)]
                    + m[i(box.r0, box.g1, box.b0)] - m[i(box.r0, box.g0, box.b0)]
            }
        }

        /// The remaining terms, with the upper bound on `axis` at `position`.
        private func top(_ box: Box, _ axis: Axis, _ position: Int, _ m: [Int]) -> Int {
            let i = WuHistogram.index
            switch axis {
            case .red:
                return m[i(position, box.g1, box.b1)] - m[i(position, box.g1, box.b0)]
                    - m[i(position, box.g0, box.b1)] + m[i(position, box.g0, box.b0)]
            case .green:
                return m[i(box.r1, position, box.b1)] - m[i(box.r1, position, box.b0)]
                    - m[i(box.r0, position, box.b1)] + m[i(box.r0, position, box.b0)]
            case .blue:
                return m[i(box.r1, box.g1, position)] - m[i(box.r1, box.g0, position)]
                    - m[i(box.r0, box.g1, position)] + m[i(box.r0, box.g0, position)]
            }
        }

        /// The box's squared error about its mean: Σ|c|² − |Σc|²/n.
        private func variance(_ box: Box) -> Double {
            let r = Double(volume(box, sumR)), g = Double(volume(box, sumG)), b = Double(volume(box, sumB))
            let w = Double(volume(box, weight))
            guard w > 0 else { return 0 }
            return Double(volume(box, sumSquares)) - (r * r + g * g + b * b) / w
        }

        /// The best cut plane on `axis` and its score (Σ|sum|²/n of the two halves, which
        /// is largest where their squared error is smallest); `nil` when no plane leaves
        /// both halves occupied.
        private func maximize(_ box: Box, _ axis: Axis, range: Range<Int>,
                              whole: (r: Int, g: Int, b: Int, w: Int)) -> (score: Double, position: Int)? {
            let baseR = bottom(box, axis, sumR), baseG = bottom(box, axis, sumG)
            let baseB = bottom(box, axis, sumB), baseW = bottom(box, axis, weight)
            var best: (score: Double, position: Int)?
            for position in range {
                let halfW = baseW + top(box, axis, position, weight)
                let otherW = whole.w - halfW
                guard halfW > 0, otherW > 0 else { continue }
                let halfR = Double(baseR + top(box, axis, position, sumR))
                let halfG = Double(baseG + top(box, axis, position, sumG))
                let halfB = Double(baseB + top(box, axis, position, sumB))
                let otherR = Double(whole.r) - halfR, otherG = Double(whole.g) - halfG, otherB = Double(whole.b) - halfB
                let score = (halfR * halfR + halfG * halfG + halfB * halfB) / Double(halfW)
                    + (otherR * otherR + otherG * otherG + otherB * otherB) / Double(otherW)
                if score > (best?.score ?? 0) { best = (score, position) }
            }
            return best
        }

        /// Cuts `box` in two at its best plane: `box` keeps the lower part and the upper
        /// part is returned; `nil` (and `box` unchanged) when it cannot be cut.
        private func cut(_ box: inout Box) -> Box? {
            let whole = (r: volume(box, sumR), g: volume(box, sumG), b: volume(box, sumB), w: volume(box, weight))
            let candidates: [(Axis, (score: Double, position: Int)?)] = [
                (.red, maximize(box, .red, range: (box.r0 + 1)..<box.r1, whole: whole)),
                (.green, maximize(box, .green, range: (box.g0 + 1)..<box.g1, whole: whole)),
                (.blue, maximize(box, .blue, range: (box.b0 + 1)..<box.b1, whole: whole)),
            ]
            var chosen: (axis: Axis, position: Int, score: Double)?
            for case let (axis, found?) in candidates where found.score > (chosen?.score ?? 0) {
                chosen = (axis, found.position, found.score)
            }
            guard let chosen else { return nil }
            var upper = box
            switch chosen.axis {
            case .red: box.r1 = chosen.position; upper.r0 = chosen.position
            case .green: box.g1 = chosen.position; upper.g0 = chosen.position
            case .blue: box.b1 = chosen.position; upper.b0 = chosen.position
            }
            return upper
        }
    }
}

extension ColorQuantizer.WuHistogram {
    /// Lloyd (k-means) passes over the occupied grid cells, each weighted by its pixel
    /// count and placed at its mean colour: every cell goes to its nearest palette colour,
    /// and every colour moves to the mean of its cells. A colour no cell chooses stays.
    func refine(_ rgb: inout [UInt8], passes: Int) {
        let count = rgb.count / 3
        guard count > 0, !occupied.isEmpty else { return }
        for _ in 0..<passes {
            let search = ColorQuantizer.NearestSearch(rgb: rgb)
            var sums = [Int](repeating: 0, count: count * 4)
            for cell in occupied {
                let half = cell.weight / 2
                let nearest = search.nearest(
                    (cell.r + half) / cell.weight, (cell.g + half) / cell.weight, (cell.b + half) / cell.weight)
                sums[nearest * 4] += cell.r
                sums[nearest * 4 + 1] += cell.g
                sums[nearest * 4 + 2] += cell.b
                sums[nearest * 4 + 3] += cell.weight
            }
            var moved = false
            for index in 0..<count {
                let weight = sums[index * 4 + 3]
                guard weight > 0 else { continue }
                for channel in 0..<3 {
                    let mean = UInt8(clamping: (sums[index * 4 + channel] + weight / 2) / weight)
                    if rgb[index * 3 + channel] != mean {
                        rgb[index * 3 + channel] = mean
                        moved = true
                    }
                }
            }
            if !moved { return }
        }
    }
}
