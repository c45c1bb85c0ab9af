import CLCMS
import Foundation

extension ColorTransform {
    /// The conversion of a matrix/shaper RGB profile (Display P3, Adobe RGB, ProPhoto, a
    /// PNG's `gAMA`/`cHRM`, an `nclx` box: nearly every RGB profile a photo carries) to
    /// sRGB, as three table look-ups, a 3 × 3 matrix and one more look-up per pixel.
    ///
    /// Little CMS's general 8-bit path costs several times a JPEG decode on these profiles;
    /// this is the same arithmetic (decode each channel's curve, map the primaries through
    /// XYZ, encode with sRGB's curve) without its per-pixel pipeline. The tables are read
    /// from the profile through Little CMS, so the result stays Little CMS's within
    /// rounding (ColorFixtureTests holds it to its conversion). Immutable: thread-safe.
    struct MatrixShaper: Sendable {
        /// Each channel's 256 values decoded to linear light (0...1), R then G then B.
        private let linear: [Float]
        /// Source linear RGB → sRGB linear RGB, row-major.
        private let matrix: [Float]
        /// sRGB's encoding of linear light sampled at `1 / (outputSteps - 1)` intervals.
        private let encode: [UInt8]
        private static let outputSteps = 16384

        /// The shaper for `profile`, or `nil` when it is not a matrix/shaper RGB profile or
        /// also has a perceptual lookup table (`A2B0`), which the perceptual intent uses
        /// instead of the matrix, so Little CMS must run it.
        init?(_ profile: cmsHPROFILE, sRGB: cmsHPROFILE) {
            guard cmsIsMatrixShaper(profile) != 0, cmsIsMatrixShaper(sRGB) != 0,
                  cmsIsCLUT(profile, cmsUInt32Number(INTENT_PERCEPTUAL), cmsUInt32Number(LCMS_USED_AS_INPUT)) == 0,
                  let source = Self.colorants(profile), let target = Self.colorants(sRGB),
                  let targetInverse = Self.inverse(target)
            else { return nil }
            var linear = [Float](repeating: 0, count: 3 * 256)
            for (channel, tag) in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag].enumerated() {
                guard let curve = cmsReadTag(profile, tag) else { return nil }
                let tone = OpaquePointer(curve)
                for value in 0..<256 {
                    linear[channel * 256 + value] = min(1, max(0, cmsEvalToneCurveFloat(tone, Float(value) / 255)))
                }
            }
            self.linear = linear
            matrix = Self.multiply(targetInverse, source).map { Float($0) }
            encode = (0..<Self.outputSteps).map { step in
                let light = Double(step) / Double(Self.outputSteps - 1)
                let encoded = light <= 0.0031308 ? 12.92 * light : 1.055 * pow(light, 1 / 2.4) - 0.055
                return UInt8(min(255, max(0, (encoded * 255).rounded())))
            }
        }

        /// Converts RGBA `pixels` in place; alpha is untouched.
        func convert(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
            guard let base = pixels.baseAddress else { return }
            let count = pixels.count / 4
            let scale = Float(Self.outputSteps - 1)
            linear.withUnsafeBufferPointer { linear in
                encode.withUnsafeBufferPointer { encode in
                    guard let lin = linear.baseAddress, let out = encode.baseAddress else { return }
                    let m = (matrix[0], matrix[1], matrix[2], matrix[3], matrix[4], matrix[5], matrix[6], matrix[7], matrix[8])
                    var p = base
                    for _ in 0..<count {
                        let r = lin[Int(p[0])], g = lin[256 + Int(p[1])], b = lin[512 + Int(p[2])]
                        let x = min(max(m.0 * r + m.1 * g + m.2 * b, 0), 1)
                        let y = min(max(m.3 * r + m.4 * g + m.5 * b, 0), 1)
                        let z = min(max(m.6 * r + m.7 * g + m.8 * b, 0), 1)
                        p[0] = out[Int(x * scale + 0.5)]
                        p[1] = out[Int(y * scale + 0.5)]
                        p[2] = out[Int(z * scale + 0.5)]
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

        private static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
            (0..<9).map { index in
                let row = index / 3, column = index % 3
                return (0..<3).reduce(0) { $0 + a[row * 3 + $1] * b[$1 * 3 + column] }
            }
        }

        private static func inverse(_ m: [Double]) -> [Double]? {
            let det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
            guard abs(det) > 1e-12 else { return nil }
            return [
                (m[4] * m[8] - m[5] * m[7]) / det, (m[2] * m[7] - m[1] * m[8]) / det, (m[1] * m[5] - m[2] * m[4]) / det,
                (m[5] * m[6] - m[3] * m[8]) / det, (m[0] * m[8] - m[2] * m[6]) / det, (m[2] * m[3] - m[0] * m[5]) / det,
                (m[3] * m[7] - m[4] * m[6]) / det, (m[1] * m[6] - m[0] * m[7]) / det, (m[0] * m[4] - m[1] * m[3]) / det,
            ]
        }
    }
}
