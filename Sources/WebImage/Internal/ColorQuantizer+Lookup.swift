extension ColorQuantizer {
    /// Maps colours to the index of the nearest palette colour (squared RGB distance;
    /// the lowest index among equals), fast enough to call once per pixel.
    ///
    /// Two levels, both exact:
    /// - a direct-mapped cache of 64 Ki colours keyed by the whole colour, so a colour met
    ///   again (most pixels of a photo, every pixel of a flat area) costs one probe;
    /// - on a miss, the colour's cell of an 8×8×8 grid holds the only palette entries that
    ///   can be nearest to anything in it (those whose least distance to the cell is within
    ///   the smallest greatest distance of any entry; the "locally sorted search" of
    ///   Heckbert and of libjpeg's quantiser). The list is made when a cell is first used.
    ///   (A 16×16×16 grid gives shorter lists but, on a 400-pixel photo, spent more time
    ///   making them than it saved.)
    ///
    /// A palette's own colours therefore map to themselves. (A coarser table indexed by
    /// cell alone is faster still but answers for the cell's centre; with 6-6-6 cells that
    /// cost 11% more squared error on a photo.)
    ///
    /// Mutable (it caches); one per encode, not shared between threads.
    struct Lookup {
        /// R, G, B of each palette colour.
        private let colors: [Int32]
        private let count: Int
        /// Colour + 1 << 24 of each cached entry; 0 is empty.
        private var keys = [UInt32](repeating: 0, count: Lookup.slots)
        private var values = [UInt8](repeating: 0, count: Lookup.slots)
        /// Per grid cell (32 levels a side), where its candidates start in `candidates`
        /// (−1: not made yet) and how many there are.
        private var cellStart = [Int32](repeating: -1, count: 512)
        private var cellCount = [UInt16](repeating: 0, count: 512)
        private var candidates: [UInt8] = []
        private static let slots = 1 << 16

        init(_ palette: Palette) {
            colors = palette.rgb.map(Int32.init)
            count = palette.colorCount
        }

        /// The palette index for the colour `r`, `g`, `b` (each 0...255); 0 when the
        /// palette has no colours.
        @inline(__always)
        mutating func index(_ r: Int, _ g: Int, _ b: Int) -> UInt8 {
            let key = UInt32(truncatingIfNeeded: r << 16 | g << 8 | b) | 1 << 24
            // Fibonacci hashing: the top 16 bits of the product mix all three channels.
            let slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B1) >> 16)
            if keys[slot] == key { return values[slot] }
            let found = search(Int32(truncatingIfNeeded: r), Int32(truncatingIfNeeded: g), Int32(truncatingIfNeeded: b))
            keys[slot] = key
            values[slot] = found
            return found
        }

        private mutating func search(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt8 {
            let cell = Int(r >> 5) << 6 | Int(g >> 5) << 3 | Int(b >> 5)
            if cellStart[cell] < 0 { makeCandidates(cell) }
            let start = Int(cellStart[cell]), end = start + Int(cellCount[cell])
            var best = Int32.max, bestIndex: UInt8 = 0
            candidates.withUnsafeBufferPointer { list in
                colors.withUnsafeBufferPointer { c in
                    // Candidates are in index order, so `<` keeps the lowest index on a tie.
                    for k in start..<end {
                        let i = Int(list[k]) * 3
                        let dr = c[i] - r, dg = c[i + 1] - g, db = c[i + 2] - b
                        let distance = dr &* dr &+ dg &* dg &+ db &* db
                        if distance < best {
                            best = distance
                            bestIndex = list[k]
                        }
                    }
                }
            }
            return bestIndex
        }

        /// The entries that can be nearest to some colour of `cell`.
        private mutating func makeCandidates(_ cell: Int) {
            let lows = (Int32(cell >> 6) * 32, Int32((cell >> 3) & 7) * 32, Int32(cell & 7) * 32)
            @inline(__always) func distances(_ value: Int32, _ low: Int32) -> (least: Int32, greatest: Int32) {
                let high = low + 31
                let below = value < low ? low - value : (value > high ? value - high : 0)
                let far = max(abs(value - low), abs(value - high))
                return (below * below, far * far)
            }
            var smallestGreatest = Int32.max
            let start = candidates.count
            colors.withUnsafeBufferPointer { c in
                for index in 0..<count {
                    let (lr, gr) = distances(c[index * 3], lows.0)
                    let (lg, gg) = distances(c[index * 3 + 1], lows.1)
                    let (lb, gb) = distances(c[index * 3 + 2], lows.2)
                    smallestGreatest = min(smallestGreatest, gr + gg + gb)
                    // Kept provisionally; the final bound is known only after every entry.
                    if lr + lg + lb <= smallestGreatest { candidates.append(UInt8(index)) }
                }
                var kept = start
                for k in start..<candidates.count {
                    let i = Int(candidates[k]) * 3
                    let least = distances(c[i], lows.0).least + distances(c[i + 1], lows.1).least
                        + distances(c[i + 2], lows.2).least
                    if least <= smallestGreatest {
                        candidates[kept] = candidates[k]
                        kept += 1
                    }
                }
                candidates.removeLast(candidates.count - kept)
            }
            cellStart[cell] = Int32(start)
            cellCount[cell] = UInt16(candidates.count - start)
        }
    }
}
