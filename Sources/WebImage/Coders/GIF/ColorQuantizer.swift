/// Chooses a palette of at most 256 colours for one or more RGBA images: what an indexed
/// format (GIF) needs before it can store true-colour pixels.
///
/// The rules, in order:
/// - A pixel with alpha below 128 is transparent, as browsers and gifsicle treat a
///   one-bit mask; alpha from 128 up counts as opaque (its alpha is dropped). Any
///   transparent pixel reserves one palette entry, placed after the colours.
/// - When the opaque colours all fit, they are the palette, exactly (``Palette/isExact``):
///   an image of 256 colours or fewer is stored without loss.
/// - Otherwise Wu's quantiser (variance-minimising box cuts on a 32×32×32 histogram,
///   Graphics Gems II) cuts colour space into boxes whose means are the palette, and
///   a few k-means passes over the histogram cells then move each colour to the centre of
///   the cells nearest to it. Wu's cuts are a better start than median cut (they minimise
///   squared error, not population) and k-means recovers what the 5-bit grid loses.
///
/// Every step is deterministic: the same pixels give the same palette. Large inputs are
/// sampled at a fixed stride (at most ``sampleLimit`` pixels feed the histogram); the exact
/// path always looks at every pixel.
///
/// Stateless; thread-safe.
///
/// ```swift
/// let palette = ColorQuantizer.palette(for: [pixels], maxColors: 256)
/// var lookup = ColorQuantizer.Lookup(palette)
/// let indices = ColorQuantizer.remap(pixels, palette: palette, lookup: &lookup, dither: true)
/// ```
enum ColorQuantizer {
    /// Alpha below this is transparent.
    static let alphaThreshold: UInt8 = 128
    /// The most pixels the histogram takes from all images together.
    static let sampleLimit = 1 << 21
    /// k-means passes after Wu's cuts. On a 400-pixel photo (TestImageLarge.jpg) two passes
    /// lower the squared error by 4% against Wu alone; each further pass gains under 1%.
    static let refinementPasses = 2

    /// A palette: opaque colours, then possibly the transparent entry.
    struct Palette: Equatable {
        /// The opaque colours, 3 bytes (R, G, B) each.
        var rgb: [UInt8]
        /// The entry for transparent pixels, equal to ``colorCount``; `nil` when not reserved.
        var transparentIndex: Int?
        /// Whether every opaque colour of the input is in the palette unchanged.
        var isExact: Bool

        /// Number of opaque colours.
        var colorCount: Int { rgb.count / 3 }
        /// Number of entries, the transparent one included.
        var entryCount: Int { colorCount + (transparentIndex == nil ? 0 : 1) }
    }

    /// A palette of at most `maxColors` entries (2...256) for all of `images` together.
    ///
    /// The transparent entry counts towards `maxColors`. It is reserved when some pixel is
    /// transparent; with `preferTransparentEntry` (an animation, whose later frames mark
    /// unchanged pixels transparent) also when the image has none, unless that would cost
    /// an exact palette its last colour.
    static func palette(for images: [PixelBuffer], maxColors: Int, preferTransparentEntry: Bool = false) -> Palette {
        let limit = min(256, max(2, maxColors))
        let scan = distinctColors(in: images, limit: limit)
        if let colors = scan.colors {
            let reserve = scan.hasTransparency || (preferTransparentEntry && colors.count < limit)
            let rgb = colors.sorted().flatMap { [UInt8(truncatingIfNeeded: $0 >> 16), UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
            return Palette(rgb: rgb, transparentIndex: reserve ? colors.count : nil, isExact: true)
        }
        let reserve = scan.hasTransparency || preferTransparentEntry
        let colorLimit = reserve ? limit - 1 : limit
        var histogram = WuHistogram()
        histogram.add(images, sampleLimit: sampleLimit)
        var rgb = histogram.cutPalette(maxColors: colorLimit)
        histogram.refine(&rgb, passes: refinementPasses)
        if rgb.isEmpty {
            // Every pixel is transparent: GIF still needs one colour besides it.
            rgb = [0, 0, 0]
        }
        return Palette(rgb: rgb, transparentIndex: reserve ? rgb.count / 3 : nil, isExact: false)
    }

    /// The distinct opaque colours (as 0xRRGGBB) of every pixel when there are few enough
    /// to fit beside any transparent entry (`nil` otherwise), and whether some pixel is
    /// transparent. Stops counting colours once too many are found, but keeps looking for
    /// transparency.
    private static func distinctColors(in images: [PixelBuffer], limit: Int) -> (colors: [UInt32]?, hasTransparency: Bool) {
        var set = ColorSet()
        var hasTransparency = false
        var overflowed = false
        for image in images {
            image.bytes.withUnsafeBufferPointer { p in
                var i = 0
                var last: UInt32 = .max
                while i < p.count {
                    if p[i + 3] < alphaThreshold {
                        hasTransparency = true
                    } else if !overflowed {
                        let key = UInt32(p[i]) << 16 | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2])
                        if key != last {
                            last = key
                            set.insert(key)
                            if set.count > limit - (hasTransparency ? 1 : 0) { overflowed = true }
                        }
                    } else if hasTransparency {
                        return
                    }
                    i += 4
                }
            }
            if overflowed && hasTransparency { break }
        }
        if set.count > limit - (hasTransparency ? 1 : 0) { overflowed = true }
        return (overflowed ? nil : set.elements, hasTransparency)
    }
}

/// A small open-addressing set of 24-bit colours, sized for the at most 257 a palette
/// scan inserts before it gives up.
private struct ColorSet {
    private var slots = [UInt32](repeating: ColorSet.empty, count: 1024)
    private(set) var count = 0
    private static let empty = UInt32.max

    var elements: [UInt32] { slots.filter { $0 != ColorSet.empty } }

    mutating func insert(_ key: UInt32) {
        // Fibonacci hashing spreads neighbouring colours over the table.
        var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B1) >> 22)
        while true {
            let current = slots[slot]
            if current == key { return }
            if current == ColorSet.empty {
                slots[slot] = key
                count += 1
                return
            }
            slot = (slot + 1) & 1023
        }
    }
}
