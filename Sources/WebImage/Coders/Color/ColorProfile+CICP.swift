extension ColorProfile {
    /// The profile that coding-independent code points (ITU-T H.273, the `nclx` colour
    /// box of AVIF and HEIF) describe, or `nil` when the pixels are sRGB already or the
    /// code points are not ones this converts.
    ///
    /// The BT.709 family of transfer functions (1, 6, 14, 15) is taken as sRGB's curve, as
    /// browsers take it for still images; unspecified values count as sRGB's. PQ (16) and
    /// HLG (18) are high dynamic range, which no 8-bit sRGB profile describes, so they give
    /// `nil`: the AVIF and HEIF decoders tone-map those themselves (``HDRToneMapping``).
    static func cicp(primaries: Int, transfer: Int) -> ColorProfile? {
        let curve: TransferCurve
        switch transfer {
        case 1, 2, 6, 13, 14, 15: curve = .sRGB
        case 4: curve = .gamma(2.2)
        case 5: curve = .gamma(2.8)
        case 8: curve = .gamma(1)
        default: return nil
        }
        guard let gamut = Gamut(primaries: primaries) else { return nil }
        if gamut == Gamut(primaries: 1), curve == .sRGB { return nil }
        return try? rgb(white: gamut.white, red: gamut.red, green: gamut.green, blue: gamut.blue, transfer: curve)
    }

    /// Primaries and white point of the H.273 colour primaries code points.
    struct Gamut: Equatable {
        var red: Chromaticity
        var green: Chromaticity
        var blue: Chromaticity
        var white: Chromaticity

        init?(primaries: Int) {
            func point(_ x: Double, _ y: Double) -> Chromaticity { Chromaticity(x: x, y: y) }
            switch primaries {
            case 1, 2:   // BT.709 and sRGB; unspecified is read as this
                self.init(point(0.64, 0.33), point(0.30, 0.60), point(0.15, 0.06), .d65)
            case 4:      // BT.470 System M, illuminant C
                self.init(point(0.67, 0.33), point(0.21, 0.71), point(0.14, 0.08), point(0.310, 0.316))
            case 5:      // BT.470 System B/G, BT.601 625 lines
                self.init(point(0.64, 0.33), point(0.29, 0.60), point(0.15, 0.06), .d65)
            case 6, 7:   // SMPTE 170M / 240M, BT.601 525 lines
                self.init(point(0.630, 0.340), point(0.310, 0.595), point(0.155, 0.070), .d65)
            case 9:      // BT.2020 and BT.2100
                self.init(point(0.708, 0.292), point(0.170, 0.797), point(0.131, 0.046), .d65)
            case 11:     // SMPTE RP 431-2, DCI-P3 with its own white
                self.init(point(0.680, 0.320), point(0.265, 0.690), point(0.150, 0.060), point(0.314, 0.351))
            case 12:     // SMPTE EG 432-1: Display P3
                self.init(point(0.680, 0.320), point(0.265, 0.690), point(0.150, 0.060), .d65)
            case 22:     // EBU Tech. 3213-E
                self.init(point(0.630, 0.340), point(0.295, 0.605), point(0.155, 0.077), .d65)
            default:
                return nil
            }
        }

        private init(_ red: Chromaticity, _ green: Chromaticity, _ blue: Chromaticity, _ white: Chromaticity) {
            self.red = red
            self.green = green
            self.blue = blue
            self.white = white
        }
    }
}
