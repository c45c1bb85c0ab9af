/// Blurs an image with a Gaussian of a given standard deviation, in time independent of
/// the radius.
///
/// The radius is the Gaussian's standard deviation in pixels, as in SDWebImage's
/// `SDImageBlurTransformer` and Pillow's `GaussianBlur`. The Gaussian is approximated, as
/// Pillow does, by three passes of an extended box filter (Gwosdek et al., 2011: a box
/// with fractional end weights, so the variance is exact for any radius) along each axis;
/// each pass is a running sum, so the cost is O(pixels) at any radius. Colour is filtered
/// premultiplied, so transparent pixels do not darken their neighbours; pixels beyond the
/// edges repeat the edge. Radii up to 10⁻⁶ return the pixels unchanged (SDWebImage's
/// `FLT_EPSILON` test); radii beyond 10⁶ act as 10⁶. Key: `SDImageBlurTransformer(<radius>)`.
/// Immutable and thread-safe.
///
/// ```swift
/// let backdrop = try BlurTransformer(radius: 20).transform(image)
/// ```
public struct BlurTransformer: PixelTransformer {
    /// The Gaussian's standard deviation in pixels.
    public let radius: Double

    /// Creates a blur of standard deviation `radius` pixels.
    public init(radius: Double) {
        self.radius = radius
    }

    public var key: String { "SDImageBlurTransformer(\(TransformerKey.number(radius)))" }

    public func transform(pixels: PixelBuffer) throws -> PixelBuffer {
        guard !radius.isNaN else { throw WebImageError.transformFailed("blur radius is not a number") }
        guard radius > 1e-6 else { return pixels }
        return BoxBlur(sigma: min(radius, 1e6)).blur(pixels)
    }
}

extension BlurTransformer {
    /// Three extended box blurs per axis approximating a Gaussian; the engine of ``BlurTransformer``.
    ///
    /// Rows are blurred first, in premultiplied `Float`, and stored transposed as 16-bit
    /// fixed point (8 bytes a pixel, precise to 1/256 of a level); the transposed rows (the
    /// columns) are then blurred the same way and stored back, un-premultiplied. Both passes
    /// read sequentially, and each writes eight lines at a time so that transposed writes
    /// fill whole cache lines.
    struct BoxBlur {
        /// Passes per axis: three boxes come within about 3% of a Gaussian.
        static let passes = 3
        /// Lines blurred together before their transposed write.
        static let block = 8

        /// The box's whole radius and the weight of the fractional taps at ±(whole + 1).
        let whole: Int
        let fraction: Float

        /// The extended box of the same variance as a third of the Gaussian's (Pillow's
        /// `_gaussian_blur_radius`, after Gwosdek et al., 2011, equations 7, 11 and 14).
        init(sigma: Double) {
            let variance = sigma * sigma / Double(Self.passes)
            let length = (12 * variance + 1).squareRoot()
            let l = ((length - 1) / 2).rounded(.down)
            let a = (2 * l + 1) * (l * (l + 1) - 3 * variance) / (6 * (variance - (l + 1) * (l + 1)))
            whole = Int(l)
            fraction = Float(a)
        }

        func blur(_ source: PixelBuffer) -> PixelBuffer {
            let w = source.width, h = source.height
            let transposed = UnsafeMutableBufferPointer<SIMD4<UInt16>>.allocate(capacity: w * h)
            defer { transposed.deallocate() }
            let lines = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: Self.block * max(w, h))
            defer { lines.deallocate() }
            let spare = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: max(w, h))
            defer { spare.deallocate() }
            guard let t = transposed.baseAddress, let line = lines.baseAddress, let scratch = spare.baseAddress else {
                preconditionFailure("allocation of a non-empty buffer returned nil")
            }
            // Rows, into the transposed buffer: row y of the source is column y there.
            for y0 in stride(from: 0, to: h, by: Self.block) {
                let count = min(Self.block, h - y0)
                for r in 0..<count {
                    let row = line + r * w
                    Resampler.premultiply(row: y0 + r, of: source, into: row)
                    blurLine(row, count: w, scratch: scratch)
                }
                for x in 0..<w {
                    let column = t + x * h + y0
                    for r in 0..<count { column[r] = Self.fixed(line[r * w + x]) }
                }
            }
            // Columns, back into rows.
            return PixelBuffer(uninitializedWidth: w, height: h) { dst in
                guard let out = dst.baseAddress else { return }
                for x0 in stride(from: 0, to: w, by: Self.block) {
                    let count = min(Self.block, w - x0)
                    for c in 0..<count {
                        let column = line + c * h
                        let stored = t + (x0 + c) * h
                        for y in 0..<h { column[y] = Self.float(stored[y]) }
                        blurLine(column, count: h, scratch: scratch)
                    }
                    for y in 0..<h {
                        for c in 0..<count {
                            Resampler.store(line[c * h + y], to: UnsafeMutableRawPointer(out + (y * w + x0 + c) * 4))
                        }
                    }
                }
            }
        }

        /// Runs the passes over one line in place, edges repeated.
        private func blurLine(_ line: UnsafeMutablePointer<SIMD4<Float>>, count n: Int, scratch: UnsafeMutablePointer<SIMD4<Float>>) {
            var input = line, output = scratch
            for _ in 0..<Self.passes {
                boxPass(input, into: output, count: n)
                swap(&input, &output)
            }
            // An odd number of passes ends in the scratch line.
            if input != line { line.update(from: input, count: n) }
        }

        /// One extended box: `out[i] = (Σ in[i−l…i+l] + f·(in[i−l−1] + in[i+l+1])) / (2l + 1 + 2f)`,
        /// with a running sum, indices clamped to the line. The middle of the line, where no
        /// index needs clamping, runs without the clamps.
        private func boxPass(_ input: UnsafeMutablePointer<SIMD4<Float>>, into output: UnsafeMutablePointer<SIMD4<Float>>, count n: Int) {
            let l = whole
            let scale = 1 / (Float(2 * l + 1) + 2 * fraction), edge = fraction * scale
            let last = n - 1
            @inline(__always) func at(_ i: Int) -> SIMD4<Float> { input[min(max(i, 0), last)] }
            // Σ in[clamp(k)] for k in −l…l, without walking a radius longer than the line.
            var sum = input[0] * Float(l + 1)
            let inside = min(l, last)
            if inside >= 1 { for k in 1...inside { sum += input[k] } }
            if l > last { sum += input[last] * Float(l - last) }
            let low = min(l + 1, n), high = max(low, n - l - 1)
            for i in 0..<low {
                output[i] = sum * scale + (at(i - l - 1) + at(i + l + 1)) * edge
                sum += at(i + l + 1) - at(i - l)
            }
            for i in low..<high {
                let entering = input[i + l + 1]
                output[i] = sum * scale + (input[i - l - 1] + entering) * edge
                sum += entering - input[i - l]
            }
            for i in high..<n {
                output[i] = sum * scale + (at(i - l - 1) + at(i + l + 1)) * edge
                sum += at(i + l + 1) - at(i - l)
            }
        }

        /// Premultiplied 0–255 to 8.8 fixed point, rounded. Adding 2²³ leaves the rounded
        /// integer in the low mantissa bits (as in ``Resampler``), which stays in SIMD
        /// registers where a per-lane conversion would not.
        @inline(__always)
        private static func fixed(_ v: SIMD4<Float>) -> SIMD4<UInt16> {
            let clamped = pointwiseMin(pointwiseMax(v * 256, SIMD4()), SIMD4(repeating: 65535))
            return SIMD4<UInt16>(truncatingIfNeeded: unsafeBitCast(clamped + 8_388_608, to: SIMD4<UInt32>.self))
        }

        @inline(__always)
        private static func float(_ v: SIMD4<UInt16>) -> SIMD4<Float> {
            let widened = SIMD4<UInt32>(truncatingIfNeeded: v) | 0x4B00_0000
            return (unsafeBitCast(widened, to: SIMD4<Float>.self) - 8_388_608) * (1 / 256)
        }
    }
}
