import CLCMS
import Foundation

extension ColorTransform {
    /// The conversion of a matrix/shaper RGB profile (Display P3, Adobe RGB, ProPhoto, a
    /// PNG's `gAMA`/`cHRM`, an `nclx` box: nearly every RGB profile a photo carries) to
    /// sRGB, as three table look-ups, two additions and three more look-ups per pixel.
    ///
    /// Little CMS's general 8-bit path costs several times a JPEG decode on these profiles;
    /// this is the same arithmetic (decode each channel's curve, map the primaries through
    /// XYZ, encode with sRGB's curve) without its per-pixel pipeline. The tables are read
    /// from the profile through Little CMS, so the result stays Little CMS's within one
    /// level (ColorProfileTests holds it to cmsDoTransform over a grid of colours).
    ///
    /// The matrix is folded into the input tables: entry `v` of channel `c` holds what
    /// value `v` adds to each output channel (its linear light times the matrix column), in
    /// fixed point, the three sums packed in 21-bit fields of one `UInt64`. A pixel is then
    /// one 64-bit sum of three look-ups, and each field indexes the sRGB encoding table,
    /// which covers every sum the matrix can reach (out-of-gamut values encode as 0 or
    /// 255), so nothing is clamped per pixel. Immutable: thread-safe.
    struct MatrixShaper: Sendable {
        /// Per input channel (R, G, B) and value, its packed contribution to the output.
        private let contributions: [UInt64]
        /// sRGB's 8-bit encoding of each field value shifted down by ``fractionShift``.
        private let encode: [UInt8]

        /// Fixed point of the contributions: 1.0 (full linear light) is `1 << 16`.
        private static let fractionBits = 16
        /// Bits dropped from a field before it indexes ``encode``: the table steps by
        /// 1/16384 of linear light, under a quarter of an 8-bit level anywhere on the curve.
        private static let fractionShift = 2
        /// The width of each packed field: sums must stay in `0 ..< 1 << fieldBits`.
        private static let fieldBits = 21

        /// The shaper for `profile`, or `nil` when it is not a matrix/shaper RGB profile,
        /// also has a perceptual lookup table (`A2B0`), which the perceptual intent uses
        /// instead of the matrix, so Little CMS must run it, or maps colours so far out of
        /// range that the packed sums would not fit.
        init?(_ profile: cmsHPROFILE, sRGB: cmsHPROFILE) {
            guard cmsIsMatrixShaper(profile) != 0, cmsIsMatrixShaper(sRGB) != 0,
                  cmsIsCLUT(profile, cmsUInt32Number(INTENT_PERCEPTUAL), cmsUInt32Number(LCMS_USED_AS_INPUT)) == 0,
                  let source = Self.colorants(profile), let target = Self.colorants(sRGB),
                  let targetInverse = ColorMatrix.inverse(target)
            else { return nil }
            let matrix = ColorMatrix.product(targetInverse, source)
            // scaled[channel][value][row]: what `value` of `channel` adds to output `row`.
            var scaled = [[[Int64]]](repeating: [], count: 3)
            for (channel, tag) in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag].enumerated() {
                guard let curve = cmsReadTag(profile, tag) else { return nil }
                let tone = OpaquePointer(curve)
                scaled[channel] = (0..<256).map { value in
                    let light = Double(min(1, max(0, cmsEvalToneCurveFloat(tone, Float(value) / 255))))
                    return (0..<3).map { row in
                        Int64((matrix[row * 3 + channel] * light * Double(1 << Self.fractionBits)).rounded())
                    }
                }
            }
            // The lowest and highest sum each output row can reach decide the bias added to
            // every sum (so none is negative) and how far the encoding table reaches.
            var lowest: Int64 = 0, highest: Int64 = 0
            for row in 0..<3 {
                let low = (0..<3).reduce(Int64(0)) { sum, channel in sum + (scaled[channel].map { $0[row] }.min() ?? 0) }
                let high = (0..<3).reduce(Int64(0)) { sum, channel in sum + (scaled[channel].map { $0[row] }.max() ?? 0) }
                lowest = min(lowest, low)
                highest = max(highest, high)
            }
            let rounding = Int64(1) << (Self.fractionShift - 1)
            let bias = -lowest + rounding
            guard highest + bias < Int64(1) << Self.fieldBits else { return nil }
            // Signed contributions packed with wrapping arithmetic: only each pixel's final
            // sums need to lie in a field's range, and the bias (in red's entries) sees to that.
            var contributions = [UInt64](repeating: 0, count: 3 * 256)
            for channel in 0..<3 {
                let added = channel == 0 ? bias : 0
                for value in 0..<256 {
                    var packed: Int64 = 0
                    for row in 0..<3 {
                        packed = packed &+ ((scaled[channel][value][row] + added) &<< Int64(row * Self.fieldBits))
                    }
                    contributions[channel * 256 + value] = UInt64(bitPattern: packed)
                }
            }
            self.contributions = contributions
            let unit = Double(1 << Self.fractionBits)
            encode = (0...Int((highest + bias) >> Self.fractionShift)).map { index in
                let light = min(1, max(0, Double((Int64(index) << Self.fractionShift) - bias + rounding) / unit))
                let encoded = light <= 0.0031308 ? 12.92 * light : 1.055 * pow(light, 1 / 2.4) - 0.055
                return UInt8(min(255, max(0, (encoded * 255).rounded())))
            }
        }

        /// Converts RGBA `pixels` in place; alpha is untouched.
        func convert(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
            guard let base = pixels.baseAddress else { return }
            let end = base + pixels.count / 4 * 4
            let mask = UInt64(1) << UInt64(Self.fieldBits - Self.fractionShift) - 1
            let redShift = UInt64(Self.fractionShift)
            let greenShift = UInt64(Self.fieldBits + Self.fractionShift)
            let blueShift = UInt64(2 * Self.fieldBits + Self.fractionShift)
            contributions.withUnsafeBufferPointer { contributions in
                encode.withUnsafeBufferPointer { encode in
                    guard let table = contributions.baseAddress, let out = encode.baseAddress else { return }
                    // Every index is in range by construction (init): a byte indexes 256
                    // entries, and a field's sum never exceeds the encoding table's end.
                    var p = base
                    while p < end {
                        let sum = table[Int(p[0])] &+ table[256 &+ Int(p[1])] &+ table[512 &+ Int(p[2])]
                        let red = out[Int(truncatingIfNeeded: (sum &>> redShift) & mask)]
                        let green = out[Int(truncatingIfNeeded: (sum &>> greenShift) & mask)]
                        let blue = out[Int(truncatingIfNeeded: sum &>> blueShift)]
                        p[0] = red
                        p[1] = green
                        p[2] = blue
                        p += 4
                    }
                }
            }
        }

        /// The profile's colorant matrix (columns rXYZ, gXYZ, bXYZ; D50 as ICC stores them).
        private static func colorants(_ profile: cmsHPROFILE) -> [Double]? {
            var columns: [cmsCIEXYZ] = []
            for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
                guard let raw = cmsReadTag(profile, tag) else { return nil }
                columns.append(raw.assumingMemoryBound(to: cmsCIEXYZ.self).pointee)
            }
            return [columns[0].X, columns[1].X, columns[2].X,
                    columns[0].Y, columns[1].Y, columns[2].Y,
                    columns[0].Z, columns[1].Z, columns[2].Z]
        }
    }
}
