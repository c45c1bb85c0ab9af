import Foundation

/// The filter a resize uses.
public enum ResamplingFilter: Sendable {
    /// Lanczos with 3 lobes: the sharpest of the usual filters; the default.
    case lanczos3
    /// Catmull-Rom bicubic: a little softer, a little faster.
    case bicubic
}

extension PixelBuffer {
    /// Returns this buffer resampled to `size` with a separable filter applied to
    /// premultiplied colour, so transparent pixels do not bleed dark fringes into their
    /// neighbours. Returns `self` unchanged when the size already matches.
    public func resized(to size: ImageSize, filter: ResamplingFilter = .lanczos3) -> PixelBuffer {
        Resampler(filter: filter).resample(self, to: size)
    }
}

/// Separable resampler shared by thumbnail decoding and the resize transformer.
struct Resampler {
    let filter: ResamplingFilter

    private var support: Double {
        switch filter {
        case .lanczos3: 3
        case .bicubic: 2
        }
    }

    private func weight(_ x: Double) -> Double {
        let x = abs(x)
        switch filter {
        case .lanczos3:
            if x < 1e-9 { return 1 }
            if x >= 3 { return 0 }
            let px = Double.pi * x
            return 3 * sin(px) * sin(px / 3) / (px * px)
        case .bicubic:
            let a = -0.5
            if x < 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
            if x < 2 { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a }
            return 0
        }
    }

    /// Filter taps for one axis: for each output index, the first input index and weights.
    private func taps(from input: Int, to output: Int) -> [(start: Int, weights: [Float])] {
        let scale = Double(output) / Double(input)
        let stretch = max(1, 1 / scale)   // widen the filter when shrinking
        let radius = support * stretch
        return (0..<output).map { o in
            let center = (Double(o) + 0.5) / scale
            let start = max(0, Int((center - radius).rounded(.down)))
            let end = min(input, Int((center + radius).rounded(.up)))
            var weights = [Float]()
            weights.reserveCapacity(end - start)
            var total = 0.0
            for i in start..<end {
                let w = weight((Double(i) + 0.5 - center) / stretch)
                weights.append(Float(w))
                total += w
            }
            if total != 0 { weights = weights.map { $0 / Float(total) } }
            return (start, weights)
        }
    }

    func resample(_ source: PixelBuffer, to size: ImageSize) -> PixelBuffer {
        precondition(size.width > 0 && size.height > 0, "resample needs a positive size")
        guard size != source.size else { return source }
        let sw = source.width, sh = source.height, dw = size.width, dh = size.height
        // Horizontal pass into premultiplied floats, then vertical pass back to bytes.
        let hTaps = taps(from: sw, to: dw)
        let vTaps = taps(from: sh, to: dh)
        var middle = [Float](repeating: 0, count: dw * sh * 4)
        source.bytes.withUnsafeBufferPointer { src in
            for y in 0..<sh {
                let row = y * sw * 4
                for x in 0..<dw {
                    let tap = hTaps[x]
                    var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                    for (k, w) in tap.weights.enumerated() {
                        let i = row + (tap.start + k) * 4
                        let alpha = Float(src[i + 3])
                        let wa = w * alpha / 255
                        r += Float(src[i]) * wa
                        g += Float(src[i + 1]) * wa
                        b += Float(src[i + 2]) * wa
                        a += w * alpha
                    }
                    let o = (y * dw + x) * 4
                    middle[o] = r; middle[o + 1] = g; middle[o + 2] = b; middle[o + 3] = a
                }
            }
        }
        return PixelBuffer(uninitializedWidth: dw, height: dh) { dst in
            for y in 0..<dh {
                let tap = vTaps[y]
                for x in 0..<dw {
                    var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                    for (k, w) in tap.weights.enumerated() {
                        let i = ((tap.start + k) * dw + x) * 4
                        r += middle[i] * w; g += middle[i + 1] * w; b += middle[i + 2] * w; a += middle[i + 3] * w
                    }
                    let o = (y * dw + x) * 4
                    let alpha = min(255, max(0, a))
                    if alpha < 0.5 {
                        dst[o] = 0; dst[o + 1] = 0; dst[o + 2] = 0; dst[o + 3] = 0
                    } else {
                        let unpremultiply = 255 / alpha
                        dst[o] = UInt8(min(255, max(0, r * unpremultiply)).rounded())
                        dst[o + 1] = UInt8(min(255, max(0, g * unpremultiply)).rounded())
                        dst[o + 2] = UInt8(min(255, max(0, b * unpremultiply)).rounded())
                        dst[o + 3] = UInt8(alpha.rounded())
                    }
                }
            }
        }
    }
}
