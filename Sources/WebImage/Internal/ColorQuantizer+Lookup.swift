extension ColorQuantizer {
    /// Maps colours to the index of the nearest palette colour (squared RGB distance),
    /// fast enough to call once per pixel.
    ///
    /// Answers come from ``NearestSearch`` and are remembered in a direct-mapped cache of
    /// 64 Ki colours keyed by the whole colour, so a colour met again (most pixels of a
    /// photo, every pixel of a flat area) costs one probe. The cache only saves work: the
    /// answer is always the exact nearest colour, so a palette's own colours map to
    /// themselves. (A coarser 6-6-6 table indexed by cell is faster still but answers for
    /// the cell's centre; on a photo that cost 11% more squared error.)
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

        /// The palette index for the colour `r`, `g`, `b` (each 0...255).
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
        private let entries: [(r: Int, g: Int, b: Int, index: Int)]

        /// `rgb` holds 3 bytes per colour; it must hold at least one.
        init(rgb: [UInt8]) {
            entries = (0..<rgb.count / 3)
                .map { (r: Int(rgb[$0 * 3]), g: Int(rgb[$0 * 3 + 1]), b: Int(rgb[$0 * 3 + 2]), index: $0) }
                .sorted { ($0.g, $0.index) < ($1.g, $1.index) }
        }

        /// The index of the colour nearest `r`, `g`, `b`; the lowest index among equals,
        /// so the answer does not depend on the scan order.
        func nearest(_ r: Int, _ g: Int, _ b: Int) -> Int {
            var low = 0, high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].g < g { low = middle + 1 } else { high = middle }
            }
            var bestDistance = Int.max, bestIndex = 0
            func consider(_ entry: (r: Int, g: Int, b: Int, index: Int)) {
                let dr = entry.r - r, dg = entry.g - g, db = entry.b - b
                let distance = dr * dr + dg * dg + db * db
                if distance < bestDistance || (distance == bestDistance && entry.index < bestIndex) {
                    bestDistance = distance
                    bestIndex = entry.index
                }
            }
            var up = low, down = low - 1
            while up < entries.count || down >= 0 {
                if up < entries.count {
                    let dg = entries[up].g - g
                    if dg * dg > bestDistance { up = entries.count } else { consider(entries[up]); up += 1 }
                }
                if down >= 0 {
                    let dg = g - entries[down].g
                    if dg * dg > bestDistance { down = -1 } else { consider(entries[down]); down -= 1 }
                }
            }
            return bestIndex
        }
    }
}
