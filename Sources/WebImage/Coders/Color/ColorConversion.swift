import Foundation

/// What a decoder does with the colour description it read: convert to sRGB (the
/// default), or keep the source's pixels and hand the profile on.
///
/// Decoders call it after scaling, so a thumbnail converts its few pixels, not the
/// source's many. A profile Little CMS cannot use (damaged, or describing other pixels
/// than the file holds) is ignored, as browsers ignore it: the image still decodes.
enum ColorConversion {
    /// Converts `pixels` (RGBA) from `profile` to sRGB in place, or, with
    /// ``ImageCoderOptions/keepsColorProfile`` and an RGB profile, leaves them and returns
    /// the profile for ``Image/colorProfile``. Grey profiles are always converted: the
    /// pixels are RGB by then, and a grey profile cannot describe them.
    static func apply(_ profile: ColorProfile?, to pixels: inout PixelBuffer, options: ImageCoderOptions) -> ColorProfile? {
        guard let profile else { return nil }
        if options.keepsColorProfile, profile.colorSpace == .rgb { return profile }
        guard let transform = transform(for: profile, options: options) else { return nil }
        pixels.bytes.withUnsafeMutableBufferPointer { transform.convert($0) }
        return nil
    }

    /// The transform ``apply(_:to:options:)`` would run on RGBA pixels from `profile`, or
    /// `nil` when it would run none (no profile, a kept one, an identity, an unusable one):
    /// for a decoder that converts its rows as it produces them (``ColorBandConverter``).
    static func transform(for profile: ColorProfile?, options: ImageCoderOptions) -> ColorTransform? {
        guard let profile, !(options.keepsColorProfile && profile.colorSpace == .rgb),
              let transform = try? ColorTransform.cache.transform(for: profile, input: .rgba),
              !transform.isIdentity
        else { return nil }
        return transform
    }

    /// ``apply(_:to:options:)`` for every frame of an animation.
    static func apply(_ profile: ColorProfile?, to frames: inout [ImageFrame], options: ImageCoderOptions) -> ColorProfile? {
        guard let profile else { return nil }
        if options.keepsColorProfile, profile.colorSpace == .rgb { return profile }
        for index in frames.indices {
            _ = apply(profile, to: &frames[index].pixels, options: options)
        }
        return nil
    }

    /// The profile from untrusted ICC bytes, or `nil` when they are not a usable one.
    static func profile(iccBytes: UnsafeRawBufferPointer) -> ColorProfile? {
        guard !iccBytes.isEmpty, iccBytes.count <= ColorProfile.maximumSize else { return nil }
        return try? ColorProfile(iccData: Data(iccBytes))
    }

    /// The profile CMYK pixels convert through: the source's own when it describes CMYK,
    /// else ``ImageCoderOptions/defaultCMYKProfile`` (FOGRA39 unless set otherwise); `nil`
    /// for the naive conversion.
    static func cmykProfile(embedded: ColorProfile?, options: ImageCoderOptions) -> ColorProfile? {
        if let embedded, embedded.colorSpace == .cmyk { return embedded }
        guard let fallback = options.defaultCMYKProfile, fallback.colorSpace == .cmyk else { return nil }
        return fallback
    }

    /// The transform for CMYK pixels from `profile` (as ``cmykProfile(embedded:options:)``
    /// chose it), or `nil` for ``convertNaiveCMYK(_:inverted:)``: no profile, or one Little
    /// CMS cannot use.
    static func cmykTransform(_ profile: ColorProfile?, inverted: Bool) -> ColorTransform? {
        profile.flatMap { try? ColorTransform.cache.transform(for: $0, input: inverted ? .invertedCMYK : .cmyk) }
    }

    /// Converts CMYK pixels (four bytes each, 0 = no ink unless `inverted`) without a
    /// profile to opaque RGBA in place: Pillow's naive formula, `R = (255 − C)(255 − K) /
    /// 255`, rounded the same way, which is also what browsers do for CMYK without a
    /// profile. JPEG passes `inverted` for Photoshop's files (0 = full ink, marked by an
    /// Adobe APP14 marker; Pillow assumes inversion even without the marker, so there the
    /// two differ).
    static func convertNaiveCMYK(_ pixels: UnsafeMutableBufferPointer<UInt8>, inverted: Bool) {
        // After optional inversion `value` is ink amount; Pillow's formula is
        // nk − nk·C/255 with nk = 255 − K.
        let flip: UInt32 = inverted ? 255 : 0
        var i = 0
        while i + 3 < pixels.count {
            let black = UInt32(pixels[i + 3]) ^ flip           // K as ink (0...255)
            let paper = 255 - black
            for channel in 0..<3 {
                let ink = UInt32(pixels[i + channel]) ^ flip
                pixels[i + channel] = UInt8(truncatingIfNeeded: paper - divideBy255(ink * paper))
            }
            pixels[i + 3] = 255
            i += 4
        }
    }

    /// `value / 255` rounded to nearest, exact for products of two bytes (Pillow's MULDIV255).
    @inline(__always)
    private static func divideBy255(_ value: UInt32) -> UInt32 {
        let t = value + 128
        return ((t >> 8) + t) >> 8
    }
}
