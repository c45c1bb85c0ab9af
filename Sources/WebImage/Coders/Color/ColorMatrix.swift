/// The 3 × 3 matrix arithmetic of colour conversion, row-major in nine `Double`s: what
/// both the matrix/shaper kernel (``ColorTransform/MatrixShaper``, from a profile's
/// colorants) and the HDR mapping (``HDRToneMapping``, from `nclx` primaries) need to go
/// from a source's RGB to sRGB's through XYZ.
enum ColorMatrix {
    /// `a × b`.
    static func product(_ a: [Double], _ b: [Double]) -> [Double] {
        (0..<9).map { index in
            let row = index / 3, column = index % 3
            return (0..<3).reduce(0) { $0 + a[row * 3 + $1] * b[$1 * 3 + column] }
        }
    }

    /// The inverse of `m`, or `nil` when it has none (a determinant within 1e-12 of 0).
    static func inverse(_ m: [Double]) -> [Double]? {
        let c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6]
        let determinant = m[0] * c0 + m[1] * c1 + m[2] * c2
        guard abs(determinant) > 1e-12 else { return nil }
        let adjugate = [
            c0, m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            c1, m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            c2, m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        return adjugate.map { $0 / determinant }
    }

    /// The RGB-to-XYZ matrix of a gamut, from its primaries' and white's chromaticities:
    /// each primary's XYZ (at Y = 1) scaled so that RGB (1, 1, 1) gives the white.
    static func rgbToXYZ(_ gamut: ColorProfile.Gamut) -> [Double]? {
        func xyz(_ point: ColorProfile.Chromaticity) -> [Double] {
            [point.x / point.y, 1, (1 - point.x - point.y) / point.y]
        }
        let r = xyz(gamut.red), g = xyz(gamut.green), b = xyz(gamut.blue), w = xyz(gamut.white)
        let primaries = [r[0], g[0], b[0], r[1], g[1], b[1], r[2], g[2], b[2]]
        guard let inverse = inverse(primaries) else { return nil }
        let scale = (0..<3).map { row in inverse[row * 3] * w[0] + inverse[row * 3 + 1] * w[1] + inverse[row * 3 + 2] * w[2] }
        return primaries.enumerated().map { index, value in value * scale[index % 3] }
    }
}
