extension ColorQuantizer {
    /// The palette index of every pixel of `pixels`, row by row: the transparent entry for
    /// alpha below 128, otherwise the nearest colour, or with `dither` Floyd–Steinberg
    /// error diffusion.
    ///
    /// Dithering runs serpentine (alternate rows right to left), which avoids the diagonal
    /// "worm" patterns of always scanning one way. Transparent pixels neither take nor pass
    /// on error, so an edge against transparency does not bleed. An exact palette has no
    /// error to spread, so `dither` changes nothing there.
    static func remap(_ pixels: PixelBuffer, palette: Palette, lookup: inout Lookup, dither: Bool) -> [UInt8] {
        let transparent = UInt8(truncatingIfNeeded: palette.transparentIndex ?? 0)
        let hasTransparentEntry = palette.transparentIndex != nil
        if dither && !palette.isExact {
            return diffuse(pixels, palette: palette, lookup: &lookup,
                           transparent: hasTransparentEntry ? transparent : nil)
        }
        return [UInt8](unsafeUninitializedCapacity: pixels.width * pixels.height) { out, initialized in
            pixels.bytes.withUnsafeBufferPointer { p in
                var lastKey = -1
                var lastIndex: UInt8 = 0
                for pixel in 0..<out.count {
                    let i = pixel * 4
                    if hasTransparentEntry && p[i + 3] < alphaThreshold {
                        out[pixel] = transparent
                        continue
                    }
                    let key = Int(p[i]) << 16 | Int(p[i + 1]) << 8 | Int(p[i + 2])
                    if key != lastKey {
                        lastKey = key
                        lastIndex = lookup.index(Int(p[i]), Int(p[i + 1]), Int(p[i + 2]))
                    }
                    out[pixel] = lastIndex
                }
            }
            initialized = out.count
        }
    }

    /// Floyd–Steinberg: each pixel's error (in 1/16 units) goes 7 to the next pixel,
    /// 3, 5 and 1 to the three below.
    private static func diffuse(_ pixels: PixelBuffer, palette: Palette, lookup: inout Lookup, transparent: UInt8?) -> [UInt8] {
        let width = pixels.width, height = pixels.height
        var out = [UInt8](repeating: 0, count: width * height)
        // Two rows of errors (this one and the next), each with one slot of margin at both
        // ends so that neighbours past the edge need no test.
        let rowLength = (width + 2) * 3
        var errors = [Int](repeating: 0, count: rowLength * 2)
        let rgb = palette.rgb
        pixels.bytes.withUnsafeBufferPointer { p in
            errors.withUnsafeMutableBufferPointer { rows in
                out.withUnsafeMutableBufferPointer { out in
                    for y in 0..<height {
                        let current = (y % 2) * rowLength, below = rowLength - current
                        let leftToRight = y % 2 == 0
                        let step = leftToRight ? 3 : -3
                        var x = leftToRight ? 0 : width - 1
                        for _ in 0..<width {
                            let i = (y * width + x) * 4
                            let e = (x + 1) * 3
                            if let transparent, p[i + 3] < alphaThreshold {
                                out[y * width + x] = transparent
                                x += step / 3
                                continue
                            }
                            let r = clampByte(Int(p[i]) + (rows[current + e] + 8) >> 4)
                            let g = clampByte(Int(p[i + 1]) + (rows[current + e + 1] + 8) >> 4)
                            let b = clampByte(Int(p[i + 2]) + (rows[current + e + 2] + 8) >> 4)
                            let index = lookup.index(r, g, b)
                            out[y * width + x] = index
                            let chosen = Int(index) * 3
                            for channel in 0..<3 {
                                let value = channel == 0 ? r : channel == 1 ? g : b
                                let error = value - Int(rgb[chosen + channel])
                                rows[current + e + step + channel] += error * 7
                                rows[below + e - step + channel] += error * 3
                                rows[below + e + channel] += error * 5
                                rows[below + e + step + channel] += error
                            }
                            x += step / 3
                        }
                        // This row's errors are spent; the slots become the row after next.
                        for k in current..<(current + rowLength) { rows[k] = 0 }
                    }
                }
            }
        }
        return out
    }

    @inline(__always)
    private static func clampByte(_ value: Int) -> Int {
        min(255, max(0, value))
    }
}
