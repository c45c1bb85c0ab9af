import Foundation

/// Brings high-dynamic-range pixels (BT.2100 PQ or HLG, such as the corpus's TestHDR.avif
/// and TestHDR.heic) to 8-bit sRGB, as a browser shows them on an SDR screen, instead of
/// reading their code values as sRGB (a washed-out, grey picture) or clipping them.
///
/// Little CMS describes no PQ or HLG curve, so this is done here, in the steps of ITU-R
/// BT.2408 (Annex 5) and BT.2390:
/// 1. **To light.** PQ code values are absolute: the SMPTE ST 2084 EOTF gives nits. HLG ones
///    are relative to the scene: the inverse OETF, then BT.2100's OOTF for a 1,000-nit
///    display (system gamma 1.2) gives nits.
/// 2. **Tone mapping.** The luminance is compressed from the content's peak to
///    ``targetWhite`` (203 nits, BT.2408's reference white: where SDR white sits in an HDR
///    signal) with BT.2390's EETF, a Hermite roll-off in the PQ domain. Luminance below
///    the knee (about 100 nits for a 1,000-nit source) is untouched; colours keep their
///    ratios (the same gain for R, G and B). The content's peak is its `clli` maximum
///    content light level when the file gives one between 203 and 10,000 nits, else
///    1,000 nits (BT.2408's reference display; brighter highlights then clip to white).
/// 3. **Gamut.** The source primaries (BT.2020 for HDR, whatever `nclx` says) go to sRGB's
///    by a linear matrix; a colour outside sRGB is first desaturated towards its own
///    luminance until no channel is negative, then scaled down until none exceeds white.
/// 4. **sRGB.** 203 nits is 1.0, encoded with sRGB's curve to 8 bits. Alpha is rescaled
///    to 8 bits, rounded.
///
/// This is the same white point and target that ``JXLCoder`` asks libjxl's own tone
/// mapping for, so an HDR photo looks alike whichever of the three formats carries it.
///
/// ```swift
/// // BT.2020, PQ, 10-bit samples; made once per distinct description (``cache``)
/// if let hdr = HDRToneMapping.cached(primaries: 9, transfer: 16, sampleMaximum: 1023) {
///     hdr.map(samples, sourceRowBytes: stride, width: width, height: height, into: rgba)
/// }
/// ```
struct HDRToneMapping: Sendable {
    /// The two HDR transfer functions of ITU-T H.273 / BT.2100.
    enum Transfer: Sendable {
        /// SMPTE ST 2084, perceptual quantiser (code point 16): absolute luminance.
        case pq
        /// ARIB STD-B67, hybrid log-gamma (code point 18): relative scene light.
        case hlg
    }

    /// The luminance, in nits, that becomes sRGB white.
    static let targetWhite = 203.0
    /// The content peak assumed when the file states none: BT.2408's reference display.
    static let defaultContentPeak = 1_000.0
    /// The nominal peak of the display HLG's OOTF is evaluated for.
    static let hlgDisplayPeak = 1_000.0

    /// The mappings made so far: a frame of an HDR animation, or the next of many photos
    /// from one camera, reuses the tables instead of computing them again.
    static let cache = ConversionCache<CacheKey, HDRToneMapping?>(capacity: 16)

    /// What ``cache`` keys a mapping by: the arguments of its initialiser.
    struct CacheKey: Hashable, Sendable {
        var primaries, transfer, sampleMaximum: Int
        var contentPeak: Double?
    }

    let transfer: Transfer
    /// The largest sample value (1023 for 10-bit samples): the one that means full signal.
    let sampleMaximum: Int
    /// The peak luminance, in nits, the tone curve compresses to ``targetWhite``.
    let contentPeak: Double
    /// Source RGB to linear sRGB (BT.709) RGB, row-major.
    private let toSRGB: [Float]
    /// The source primaries' luminance weights (the Y row of their RGB-to-XYZ matrix).
    private let luminanceWeights: (Float, Float, Float)
    /// Tone-mapped luminance, relative to ``targetWhite``, at `contentPeak × i / (count − 1)`.
    private let toneCurve: [Float]
    /// Sample value → light: nits for PQ, scene light (0–1) for HLG.
    private let light: [Float]

    /// The mapping for `nclx` code points, or `nil` when `transfer` is not PQ (16) or HLG
    /// (18), or the primaries are ones ``ColorProfile/cicp(primaries:transfer:)`` does not
    /// know (the pixels are then not HDR as far as a decoder can tell). Unspecified
    /// primaries (2) are read as BT.2020's, HDR's own. Samples run from 0 to
    /// `sampleMaximum` (1023 for 10 bits, at most 65535).
    init?(primaries: Int, transfer: Int, contentPeak: Double? = nil, sampleMaximum: Int) {
        guard (1...65_535).contains(sampleMaximum) else { return nil }
        self.sampleMaximum = sampleMaximum
        switch transfer {
        case 16: self.transfer = .pq
        case 18: self.transfer = .hlg
        default: return nil
        }
        guard let gamut = Self.gamut(primaries: primaries),
              let sRGB = ColorProfile.Gamut(primaries: 1),
              let sourceToXYZ = ColorMatrix.rgbToXYZ(gamut), let sRGBToXYZ = ColorMatrix.rgbToXYZ(sRGB),
              let xyzToSRGB = ColorMatrix.inverse(sRGBToXYZ)
        else { return nil }
        toSRGB = ColorMatrix.product(xyzToSRGB, sourceToXYZ).map { Float($0) }
        luminanceWeights = (Float(sourceToXYZ[3]), Float(sourceToXYZ[4]), Float(sourceToXYZ[5]))
        let statedPeak = contentPeak.flatMap { (Self.targetWhite...10_000).contains($0) ? $0 : nil }
        self.contentPeak = self.transfer == .hlg ? Self.hlgDisplayPeak : statedPeak ?? Self.defaultContentPeak
        toneCurve = Self.toneCurve(peak: self.contentPeak)
        light = Self.lightTable(transfer: self.transfer, sampleMaximum: sampleMaximum)
    }

    /// The mapping ``init(primaries:transfer:contentPeak:sampleMaximum:)`` makes, from
    /// `cache` (the shared ``cache`` unless a test gives its own).
    static func cached(
        primaries: Int,
        transfer: Int,
        contentPeak: Double? = nil,
        sampleMaximum: Int,
        in cache: ConversionCache<CacheKey, HDRToneMapping?> = cache
    ) -> HDRToneMapping? {
        let key = CacheKey(primaries: primaries, transfer: transfer, sampleMaximum: sampleMaximum, contentPeak: contentPeak)
        return cache.value(for: key) {
            HDRToneMapping(primaries: primaries, transfer: transfer, contentPeak: contentPeak, sampleMaximum: sampleMaximum)
        }
    }

    /// Whether ``init(primaries:transfer:contentPeak:)`` makes a mapping for these code
    /// points, without building its tables: what a decoder asks before it chooses the
    /// depth to decode at.
    static func describesHDR(primaries: Int, transfer: Int) -> Bool {
        (transfer == 16 || transfer == 18) && gamut(primaries: primaries) != nil
    }

    /// The gamut of `primaries`, unspecified (2) read as BT.2020's, HDR's own.
    private static func gamut(primaries: Int) -> ColorProfile.Gamut? {
        ColorProfile.Gamut(primaries: primaries == 2 ? 9 : primaries)
    }

    /// Maps an image of `width` × `height` RGBA pixels whose 16-bit samples run from 0 to
    /// ``sampleMaximum`` and whose rows start `sourceRowBytes` apart, to packed 8-bit sRGB
    /// RGBA in `destination` (`width` × `height` × 4 bytes). A sample above the maximum
    /// reads as the maximum.
    func map(
        _ source: UnsafeRawPointer,
        sourceRowBytes: Int,
        width: Int,
        height: Int,
        into destination: UnsafeMutablePointer<UInt8>
    ) {
        for row in 0..<height {
            mapRow((source + row * sourceRowBytes).assumingMemoryBound(to: UInt16.self), pixelCount: width,
                   into: destination + row * width * 4)
        }
    }

    /// One row of ``map(_:sourceRowBytes:width:height:into:)``.
    private func mapRow(_ source: UnsafePointer<UInt16>, pixelCount: Int, into destination: UnsafeMutablePointer<UInt8>) {
        let encode = Self.sRGBEncoding
        let light = light
        let top = sampleMaximum
        let curveScale = Float(toneCurve.count - 1) / Float(contentPeak)
        let alphaScale = 255 / Float(sampleMaximum)
        let (wr, wg, wb) = luminanceWeights
        let m = toSRGB
        let encodeScale = Float(Self.encodingSteps)
        for pixel in 0..<pixelCount {
            let s = source + pixel * 4, d = destination + pixel * 4
            var r = light[min(Int(s[0]), top)], g = light[min(Int(s[1]), top)], b = light[min(Int(s[2]), top)]
            if transfer == .hlg {
                // BT.2100's OOTF: display light = peak × Ys^(γ − 1) × scene light.
                let sceneY = wr * r + wg * g + wb * b
                let gain = sceneY > 0 ? Float(Self.hlgDisplayPeak) * powf(sceneY, 0.2) : 0
                r *= gain; g *= gain; b *= gain
            }
            // Tone mapping on luminance, one gain for all three channels (hue kept).
            let nits = wr * r + wg * g + wb * b
            var gain: Float = 0
            if nits > 0 {
                let position = min(nits, Float(contentPeak)) * curveScale
                let index = min(Int(position), toneCurve.count - 2)
                let fraction = position - Float(index)
                let mapped = toneCurve[index] + (toneCurve[index + 1] - toneCurve[index]) * fraction
                gain = mapped / nits
            }
            r *= gain; g *= gain; b *= gain
            var red = m[0] * r + m[1] * g + m[2] * b
            var green = m[3] * r + m[4] * g + m[5] * b
            var blue = m[6] * r + m[7] * g + m[8] * b
            // Out of sRGB's gamut: towards grey of the same luminance, then under white.
            let lowest = min(red, green, blue)
            if lowest < 0 {
                let y = max(0, 0.2126 * red + 0.7152 * green + 0.0722 * blue)
                let keep = y / (y - lowest)
                red = y + (red - y) * keep; green = y + (green - y) * keep; blue = y + (blue - y) * keep
            }
            let highest = max(red, green, blue)
            if highest > 1 { red /= highest; green /= highest; blue /= highest }
            d[0] = encode[Int(max(0, red) * encodeScale + 0.5)]
            d[1] = encode[Int(max(0, green) * encodeScale + 0.5)]
            d[2] = encode[Int(max(0, blue) * encodeScale + 0.5)]
            d[3] = UInt8(Float(min(Int(s[3]), top)) * alphaScale + 0.5)
        }
    }

    /// Sample value → light: nits for PQ, scene light (0–1) for HLG.
    private static func lightTable(transfer: Transfer, sampleMaximum: Int) -> [Float] {
        (0...sampleMaximum).map { code in
            let value = Double(code) / Double(sampleMaximum)
            switch transfer {
            case .pq: return Float(Self.pqToNits(value))
            case .hlg: return Float(Self.hlgToScene(value))
            }
        }
    }

    // MARK: - Transfer functions

    private static let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
    private static let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32

    /// SMPTE ST 2084's EOTF: a PQ value (0–1) to nits (0–10,000).
    static func pqToNits(_ value: Double) -> Double {
        let p = pow(min(max(value, 0), 1), 1 / m2)
        return 10_000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// The inverse of ``pqToNits(_:)``.
    static func nitsToPQ(_ nits: Double) -> Double {
        let y = pow(min(max(nits, 0), 10_000) / 10_000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// ARIB STD-B67's inverse OETF: an HLG value (0–1) to scene light (0–1).
    static func hlgToScene(_ value: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
        let v = min(max(value, 0), 1)
        return v <= 0.5 ? v * v / 3 : (exp((v - c) / a) + b) / 12
    }

    /// BT.2390's EETF from a source peaking at `peak` nits to a display peaking at
    /// ``targetWhite``, black at 0 for both: the output nits for `nits`.
    static func eetf(_ nits: Double, peak: Double) -> Double {
        let sourcePeak = nitsToPQ(peak)
        let maxLuminance = nitsToPQ(targetWhite) / sourcePeak
        guard maxLuminance < 1 else { return min(nits, targetWhite) }
        let e1 = min(nitsToPQ(nits) / sourcePeak, 1)
        let kneeStart = 1.5 * maxLuminance - 0.5
        var e2 = e1
        if e1 >= kneeStart {
            let t = (e1 - kneeStart) / (1 - kneeStart), t2 = t * t, t3 = t2 * t
            e2 = (2 * t3 - 3 * t2 + 1) * kneeStart + (t3 - 2 * t2 + t) * (1 - kneeStart) + (-2 * t3 + 3 * t2) * maxLuminance
        }
        return pqToNits(e2 * sourcePeak)
    }

    /// The EETF tabulated over 0…`peak` nits, relative to ``targetWhite``; 4,097 entries
    /// (a quarter-nit apart for 1,000 nits), read with linear interpolation.
    private static func toneCurve(peak: Double) -> [Float] {
        let steps = 4096
        return (0...steps).map { Float(eetf(peak * Double($0) / Double(steps), peak: peak) / targetWhite) }
    }

    /// Linear light 0…1 in ``encodingSteps`` steps to sRGB's 8-bit code values. 16,384
    /// steps resolve sRGB's darkest codes (code 1 is linear 0.0003).
    private static let encodingSteps = 16_383
    private static let sRGBEncoding: [UInt8] = (0...encodingSteps).map { step in
        let linear = Double(step) / Double(encodingSteps)
        let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
        return UInt8((encoded * 255).rounded())
    }
}
