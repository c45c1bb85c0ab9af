import Foundation

extension RotateTransformer {
    /// Rotates by sampling: each output pixel's centre is mapped back into the source and
    /// filtered with Catmull-Rom weights over a 4×4 neighbourhood of premultiplied pixels.
    /// Neighbours outside the source count as transparent, which anti-aliases the edges.
    static func resample(_ source: PixelBuffer, angle: Double, canvas: ImageSize) -> PixelBuffer {
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
                        let value = sample(src, width: w, height: h, x: sx, y: sy)
                        Resampler.store(value, to: target)
                    }
                }
            }
        }
    }

    /// The premultiplied bicubic value at pixel coordinates (`x`, `y`), pixel centres at
    /// whole numbers.
    @inline(__always)
    private static func sample(_ src: UnsafeRawPointer, width: Int, height: Int, x: Double, y: Double) -> SIMD4<Float> {
        let fx = x.rounded(.down), fy = y.rounded(.down)
        let x0 = Int(fx) - 1, y0 = Int(fy) - 1
        let wx = catmullRom(Float(x - fx)), wy = catmullRom(Float(y - fy))
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

    /// Catmull-Rom (cubic convolution with a = −0.5, Pillow's bicubic) weights of the taps
    /// at −1, 0, 1, 2 for a sample `t` of the way from tap 0 to tap 1.
    @inline(__always)
    private static func catmullRom(_ t: Float) -> SIMD4<Float> {
        let t2 = t * t, t3 = t2 * t
        return SIMD4(
            -0.5 * t3 + t2 - 0.5 * t,
            1.5 * t3 - 2.5 * t2 + 1,
            -1.5 * t3 + 2 * t2 + 0.5 * t,
            0.5 * t3 - 0.5 * t2
        )
    }
}
