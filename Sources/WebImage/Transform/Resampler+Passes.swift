extension Resampler {
    /// Source pixel `index` of `bytes` as floats, unchanged: the premultiplied form of an
    /// opaque pixel.
    @inline(__always)
    static func pixel(_ bytes: UnsafeRawPointer, _ index: Int) -> SIMD4<Float> {
        // Bytes to floats through the exponent trick (`0x4B000000 | b` is `2²³ + b`), which
        // stays in SSE2 registers where a per-lane integer conversion would not.
        let widened = SIMD4<UInt32>(truncatingIfNeeded: bytes.loadUnaligned(fromByteOffset: index &* 4, as: SIMD4<UInt8>.self))
        return unsafeBitCast(widened | 0x4B00_0000, to: SIMD4<Float>.self) - 8_388_608
    }

    /// Source pixel `index` of `bytes` premultiplied: `(r·a/255, g·a/255, b·a/255, a)`.
    @inline(__always)
    static func premultiplied(_ bytes: UnsafeRawPointer, _ index: Int) -> SIMD4<Float> {
        let v = pixel(bytes, index)
        let k = v.w * (1 / 255)
        return v * SIMD4(k, k, k, 1)
    }

    /// Whether all `count` pixels at `bytes` are opaque, eight bytes at a time: much
    /// cheaper than premultiplying, and photographs are opaque. Alpha, the fourth byte of
    /// each pixel, is the top byte of each 32-bit half on the little-endian CPUs Swift
    /// runs on.
    @inline(__always)
    static func isOpaque(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        let mask: UInt64 = 0xFF00_0000_FF00_0000
        var all = mask
        var x = 0
        while x &+ 2 <= count {
            all &= bytes.loadUnaligned(fromByteOffset: x &* 4, as: UInt64.self)
            x &+= 2
        }
        if x < count { all &= UInt64(bytes.loadUnaligned(fromByteOffset: x &* 4, as: UInt32.self)) | 0xFF00_0000_0000_0000 }
        return all & mask == mask
    }

    /// Writes row `y` of `source` into `row` as premultiplied floats.
    static func premultiply(row y: Int, of source: PixelBuffer, into row: UnsafeMutablePointer<SIMD4<Float>>) {
        let width = source.width
        source.bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            let bytes = base + y * width * 4
            if isOpaque(bytes, count: width) {
                for x in 0..<width { row[x] = pixel(bytes, x) }
            } else {
                for x in 0..<width { row[x] = premultiplied(bytes, x) }
            }
        }
    }

    /// Horizontal pass over two rows that share the taps:
    /// `out[x] = Σ src[starts[x] + k] · weights[x·width + k]`. Filtering two rows together
    /// loads and broadcasts each weight once for both. For a lone last row pass the same
    /// row (and output) twice.
    static func filterRows(
        _ src0: UnsafePointer<SIMD4<Float>>,
        _ src1: UnsafePointer<SIMD4<Float>>,
        into out0: UnsafeMutablePointer<SIMD4<Float>>,
        _ out1: UnsafeMutablePointer<SIMD4<Float>>,
        count: Int,
        starts: UnsafeBufferPointer<Int>,
        weights: UnsafeBufferPointer<Float>,
        width: Int
    ) {
        guard let weightBase = weights.baseAddress, let startBase = starts.baseAddress else { return }
        for x in 0..<count {
            let p = src0 + startBase[x], q = src1 + startBase[x]
            let w = weightBase + x &* width
            // Two sums per row hide the latency of the adds; one would make the loop wait
            // on each add in turn.
            var a0 = SIMD4<Float>(), a1 = SIMD4<Float>(), b0 = SIMD4<Float>(), b1 = SIMD4<Float>()
            var k = 0
            while k &+ 2 <= width {
                let w0 = w[k], w1 = w[k &+ 1]
                a0 += p[k] * w0
                b0 += q[k] * w0
                a1 += p[k &+ 1] * w1
                b1 += q[k &+ 1] * w1
                k &+= 2
            }
            if k < width {
                a0 += p[k] * w[k]
                b0 += q[k] * w[k]
            }
            out0[x] = a0 + a1
            out1[x] = b0 + b1
        }
    }

    /// Vertical pass for one output row: the weighted sum of whole filtered rows
    /// (`rows(k)` for tap `k`), added row after row so every read is sequential, then
    /// un-premultiplied into the 4-byte pixels at `out`.
    @inline(__always)
    static func filterColumn(
        rows: (Int) -> UnsafeMutablePointer<SIMD4<Float>>,
        weights w: UnsafePointer<Float>,
        width: Int,
        rowWidth: Int,
        sums acc: UnsafeMutablePointer<SIMD4<Float>>,
        into out: UnsafeMutableRawPointer
    ) {
        var k: Int
        // Two rows per sweep halve the loads and stores of the running sums.
        if width >= 2 {
            let w0 = w[0], w1 = w[1], src = rows(0), next = rows(1)
            for x in 0..<rowWidth { acc[x] = src[x] * w0 + next[x] * w1 }
            k = 2
        } else {
            let w0 = w[0], src = rows(0)
            for x in 0..<rowWidth { acc[x] = src[x] * w0 }
            k = 1
        }
        while k + 2 <= width {
            let w0 = w[k], w1 = w[k + 1], src = rows(k), next = rows(k + 1)
            for x in 0..<rowWidth { acc[x] += src[x] * w0 + next[x] * w1 }
            k += 2
        }
        if k < width {
            let w0 = w[k], src = rows(k)
            for x in 0..<rowWidth { acc[x] += src[x] * w0 }
        }
        for x in 0..<rowWidth { store(acc[x], to: out + x * 4) }
    }

    /// Un-premultiplies, rounds and clamps one pixel into 4 bytes. Alpha that rounds to
    /// 0 gives transparent black, as Pillow does.
    @inline(__always)
    static func store(_ v: SIMD4<Float>, to p: UnsafeMutableRawPointer) {
        let alpha = v.w
        guard alpha >= 0.5 else {
            p.storeBytes(of: 0, as: UInt32.self)
            return
        }
        let k = 255 / alpha
        let clamped = pointwiseMin(pointwiseMax(v * SIMD4(k, k, k, 1), SIMD4()), SIMD4(repeating: 255))
        // Adding 2²³ leaves the rounded integer in the low mantissa bits (the inverse of
        // `pixel(_:_:)`), avoiding a per-lane conversion call.
        let rounded = unsafeBitCast(clamped + 8_388_608, to: SIMD4<UInt32>.self)
        p.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: rounded), as: SIMD4<UInt8>.self)
    }
}
