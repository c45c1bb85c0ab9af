import Foundation

extension RotateTransformer {
    /// Rotates by sampling: each output pixel's centre is mapped back into the source and
    /// filtered with cubic-convolution weights over a 4×4 neighbourhood of premultiplied
    /// pixels. Neighbours outside the source count as transparent, which anti-aliases the
    /// edges. `cubic` is the kernel's parameter: −0.5 is Catmull-Rom (what the transformer
    /// uses: the most accurate cubic, least ringing); −1 is Pillow's sharper `BICUBIC` for
    /// transforms, which the tests use to check the geometry against Pillow exactly.
    static func resample(_ source: PixelBuffer, angle: Double, canvas: ImageSize, cubic: Float = -0.5) -> PixelBuffer {
        let cosA = cos(angle), sinA = sin(angle)
        let w = source.width, h = source.height
        let sourceCentre = (x: Double(w) / 2 - 0.5, y: Double(h) / 2 - 0.5)
        let canvasCentre = (x: Double(canvas.width) / 2 - 0.5, y: Double(canvas.height) / 2 - 0.5)
        // Beyond these, all sixteen taps miss the source (or weigh 0).
        let limitX = (low: -2.0, high: Double(w) + 1), limitY = (low: -2.0, high: Double(h) + 1)
        return PixelBuffer(uninitializedWidth: canvas.width, height: canvas.height) { dst in
            source.bytes.withUnsafeBytes { raw in
                guard let src = raw.baseAddress, let out = dst.baseAddress else { return }
                for oy in 0..<canvas.height {
                    let dy = Double(oy) - canvasCentre.y
                    for ox in 0..<canvas.width {
                        let dx = Double(ox) - canvasCentre.x
                        let sx = dx * cosA - dy * sinA + sourceCentre.x
                        let sy = dx * sinA + dy * cosA + sourceCentre.y
                        let target = UnsafeMutableRawPointer(out + (oy * canvas.width + ox) * 4)
                        guard sx > limitX.low, sx < limitX.high, sy > limitY.low, sy < limitY.high else {
                            target.storeBytes(of: 0, as: UInt32.self)
                            continue
                        }
                        let value = sample(src, width: w, height: h, x: sx, y: sy, cubic: cubic)
                        Resampler.store(value, to: target)
                    }
                }
            }
        }
    }

    /// The premultiplied bicubic value at pixel coordinates (`x`, `y`), pixel centres at
    /// whole numbers.
    @inline(__always)
    private static func sample(_ src: UnsafeRawPointer, width: Int, height: Int, x: Double, y: Double, cubic a: Float) -> SIMD4<Float> {
        let fx = x.rounded(.down), fy = y.rounded(.down)
        let x0 = Int(fx) - 1, y0 = Int(fy) - 1
        let wx = weights(Float(x - fx), a), wy = weights(Float(y - fy), a)
        var sum = SIMD4<Float>()
        for j in 0..<4 {
            let row = y0 + j
            guard row >= 0, row < height else { continue }
            var acc = SIMD4<Float>()
            for i in 0..<4 {
                let column = x0 + i
                guard column >= 0, column < width else { continue }
                acc += Resampler.premultiplied(src, row * width + column) * wx[i]
            }
            sum += acc * wy[j]
        }
        return sum
    }

    /// Cubic-convolution weights (Keys, 1981, parameter `a`) of the taps at −1, 0, 1, 2 for
    /// a sample `t` of the way from tap 0 to tap 1.
    @inline(__always)
    private static func weights(_ t: Float, _ a: Float) -> SIMD4<Float> {
        let t2 = t * t, t3 = t2 * t
        return SIMD4(
            a * (t3 - 2 * t2 + t),
            (a + 2) * t3 - (a + 3) * t2 + 1,
            -(a + 2) * t3 + (2 * a + 3) * t2 - a * t,
            a * (t2 - t3)
        )
    }
}
