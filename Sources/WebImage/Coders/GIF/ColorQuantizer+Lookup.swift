extension ColorQuantizer {
    /// Maps colours to the index of the nearest palette colour (squared RGB distance;
    /// the lowest index among equals), fast enough to call once per pixel.
    ///
    /// Answers come from ``NearestSearch`` and are remembered in a direct-mapped cache of
    /// 64 Ki colours keyed by the whole colour, so a colour met again (most pixels of a
    /// photo, every pixel of a flat area) costs one probe. The cache only saves work: the
    /// answer is always the exact nearest colour, so a palette's own colours map to
    /// themselves. Measured alternatives: a 6-6-6 table indexed by cell answers for the
    /// cell's centre and cost 11% more squared error on a photo; per-cell candidate lists
    /// (libjpeg's "locally sorted search") were exact but, on a 400-pixel photo, spent
    /// more time building lists than they saved (14 ms against 11 ms for the whole encode).
    ///
    /// Mutable (it caches); one per encode, not shared between threads.
    struct Lookup {
        private let search: NearestSearch
        /// Colour + 1 << 24 of each cached entry; 0 is empty.
        private var keys = [UInt32](repeating: 0, count: Lookup.slots)
        private var values = [UInt8](repeating: 0, count: Lookup.slots)
        private static let slots = 1 << 16

        init(_ palette: Palette) {
            search = NearestSearch(rgb: palette.rgb)
        }

        /// The palette index for the colour `r`, `g`, `b` (each 0...255); 0 when the
        /// palette has no colours.
        @inline(__always)
        mutating func index(_ r: Int, _ g: Int, _ b: Int) -> UInt8 {
            let key = UInt32(truncatingIfNeeded: r << 16 | g << 8 | b) | 1 << 24
            // Fibonacci hashing: the top 16 bits of the product mix all three channels.
            let slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B1) >> 16)
            if keys[slot] == key { return values[slot] }
            let found = UInt8(truncatingIfNeeded: search.nearest(r, g, b))
            keys[slot] = key
            values[slot] = found
            return found
        }
    }

    /// Exact nearest-colour search: the colours sorted by green, scanned outwards from the
    /// query's green and stopped on each side once the green difference alone exceeds the
    /// best distance found. Immutable; thread-safe.
    struct NearestSearch {
        /// Per entry, in green order: R, G, B and the palette index, 4 values each.
        private let entries: [Int32]
        private let count: Int

        /// `rgb` holds 3 bytes per colour.
        init(rgb: [UInt8]) {
            count = rgb.count / 3
            let order = (0..<count).sorted { (rgb[$0 * 3 + 1], $0) < (rgb[$1 * 3 + 1], $1) }
            entries = order.flatMap { [Int32(rgb[$0 * 3]), Int32(rgb[$0 * 3 + 1]), Int32(rgb[$0 * 3 + 2]), Int32($0)] }
        }

        /// The index of the colour nearest `r`, `g`, `b` (0 when there are no colours);
        /// the lowest index among equals, so the answer does not depend on the scan order.
        func nearest(_ r: Int, _ g: Int, _ b: Int) -> Int {
            entries.withUnsafeBufferPointer { e in
                let r = Int32(truncatingIfNeeded: r), g = Int32(truncatingIfNeeded: g), b = Int32(truncatingIfNeeded: b)
                var low = 0, high = count
                while low < high {
                    let middle = (low + high) / 2
                    if e[middle * 4 + 1] < g { low = middle + 1 } else { high = middle }
                }
                var bestDistance = Int32.max, bestIndex = Int32(0)
                @inline(__always) func consider(_ k: Int) {
                    let dr = e[k] - r, dg = e[k + 1] - g, db = e[k + 2] - b
                    let distance = dr &* dr &+ dg &* dg &+ db &* db
                    if distance < bestDistance || (distance == bestDistance && e[k + 3] < bestIndex) {
                        bestDistance = distance
                        bestIndex = e[k + 3]
                    }
                }
                // Upwards first, then downwards with the bound found so far; an entry
                // whose green alone is farther than the best cannot be nearer.
                var up = low
                while up < count {
                    let dg = e[up * 4 + 1] - g
                    if dg &* dg > bestDistance { break }
                    consider(up * 4)
                    up += 1
                }
                var down = low - 1
                while down >= 0 {
                    let dg = g - e[down * 4 + 1]
                    if dg &* dg > bestDistance { break }
                    consider(down * 4)
                    down -= 1
                }
                return Int(bestIndex)
            }
        }
    }
}
