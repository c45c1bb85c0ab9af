extension TintTransformer {
    /// How the tint colour combines with the image; raw values are CoreGraphics'
    /// `CGBlendMode` numbers, so keys match SDWebImage's.
    ///
    /// The separable modes (``normal`` to ``lighten``) blend the colours and then composite
    /// source-over, so transparent parts of the image take the plain tint colour; the
    /// Porter-Duff modes (``sourceIn``, ``sourceAtop``) keep the image's shape.
    public enum BlendMode: Int32, Sendable, Hashable, CaseIterable {
        /// The colour over the image (`kCGBlendModeNormal`, 0).
        case normal = 0
        /// Colour × image: darkens (`kCGBlendModeMultiply`, 1).
        case multiply = 1
        /// Inverse of multiplying the inverses: lightens (`kCGBlendModeScreen`, 2).
        case screen = 2
        /// Multiply or screen depending on the image, keeping its highlights and shadows
        /// (`kCGBlendModeOverlay`, 3).
        case overlay = 3
        /// The darker of colour and image per channel (`kCGBlendModeDarken`, 4).
        case darken = 4
        /// The lighter of colour and image per channel (`kCGBlendModeLighten`, 5).
        case lighten = 5
        /// The colour where the image is; result alpha = colour alpha × image alpha
        /// (`kCGBlendModeSourceIn`, 18). SDWebImage's default since 5.20.
        case sourceIn = 18
        /// The colour over the image, only where the image is; the image's alpha is kept
        /// (`kCGBlendModeSourceAtop`, 20). SDWebImage's tint before 5.20.
        case sourceAtop = 20

        /// Composites straight `source` onto straight `backdrop` (both 0–1) and returns the
        /// premultiplied result (colour × alpha, alpha), 0–1.
        @inline(__always)
        func composite(source s: SIMD4<Float>, backdrop d: SIMD4<Float>) -> SIMD4<Float> {
            let sa = s.w, da = d.w
            let cs = SIMD4(s.x, s.y, s.z, 0), cd = SIMD4(d.x, d.y, d.z, 0)
            switch self {
            case .sourceIn:
                return cs * (sa * da) + SIMD4(0, 0, 0, sa * da)
            case .sourceAtop:
                return cs * (sa * da) + cd * ((1 - sa) * da) + SIMD4(0, 0, 0, da)
            default:
                // W3C: co = αs·αb·B(Cb, Cs) + αs·(1 − αb)·Cs + (1 − αs)·αb·Cb.
                let blended = blend(cs, cd)
                let colour = blended * (sa * da) + cs * (sa * (1 - da)) + cd * ((1 - sa) * da)
                return colour + SIMD4(0, 0, 0, sa + da * (1 - sa))
            }
        }

        /// The separable blend function B(backdrop, source), per channel.
        @inline(__always)
        private func blend(_ cs: SIMD4<Float>, _ cd: SIMD4<Float>) -> SIMD4<Float> {
            switch self {
            case .multiply: return cs * cd
            case .screen: return cs + cd - cs * cd
            case .overlay:
                // Hard light with the roles swapped: the backdrop picks multiply or screen.
                let multiplied = 2 * cs * cd
                let screened = 1 - 2 * (1 - cs) * (1 - cd)
                return multiplied.replacing(with: screened, where: cd .> 0.5)
            case .darken: return pointwiseMin(cs, cd)
            case .lighten: return pointwiseMax(cs, cd)
            case .normal, .sourceIn, .sourceAtop: return cs
            }
        }
    }
}
