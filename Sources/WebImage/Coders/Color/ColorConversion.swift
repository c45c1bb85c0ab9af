import Foundation

/// What a decoder does with the colour description it read: convert to sRGB (the
/// default), or keep the source's pixels and hand the profile on.
///
/// Decoders call it after scaling, so a thumbnail converts its few pixels, not the
/// source's many. A profile Little CMS cannot use (damaged, or describing other pixels
/// than the file holds) is ignored, as browsers ignore it: the image still decodes.
enum ColorConversion {
    /// Converts `pixels` (RGBA) from `profile` to sRGB in place, or, with
    /// ``ImageCoderOptions/keepsColorProfile`` and an RGB profile Little CMS can use, leaves
    /// them and returns the profile for ``Image/colorProfile``. Grey profiles are always
    /// converted: the pixels are RGB by then, and a grey profile cannot describe them. A
    /// grey profile on colour pixels describes other pixels than the file holds (a
    /// mis-tagged file) and is ignored, as libvips ignores it: its table, read from the red
    /// channel, would turn the picture grey.
    static func apply(_ profile: ColorProfile?, to pixels: inout PixelBuffer, options: ImageCoderOptions) -> ColorProfile? {
        guard let profile else { return nil }
        if let kept = kept(profile, options: options) { return kept }
        if profile.colorSpace == .gray, !isGrey(pixels) { return nil }
        guard let transform = transform(for: profile, options: options) else { return nil }
        pixels.bytes.withUnsafeMutableBufferPointer { transform.convert($0) }
        return nil
    }

    /// The profile to hand on unconverted: an RGB one, with
    /// ``ImageCoderOptions/keepsColorProfile``, that Little CMS can use. One it cannot use
    /// is dropped, and the pixels stay as they are, as when converting: kept, it would be
    /// embedded in what the image is encoded to (and a JPEG XL encoder refuses it).
    private static func kept(_ profile: ColorProfile, options: ImageCoderOptions) -> ColorProfile? {
        guard options.keepsColorProfile, profile.colorSpace == .rgb,
              (try? ColorTransform.cache.transform(for: profile, input: .rgba)) != nil else { return nil }
        return profile
    }

    /// Whether every pixel has equal red, green and blue (stops at the first that does not).
    private static func isGrey(_ pixels: PixelBuffer) -> Bool {
        pixels.bytes.withUnsafeBufferPointer { bytes in
            var index = 0
            while index + 2 < bytes.count {
                if bytes[index] != bytes[index + 1] || bytes[index] != bytes[index + 2] { return false }
                index += 4
            }
            return true
        }
    }

    /// The transform ``apply(_:to:options:)`` would run on RGBA pixels from `profile`, or
    /// `nil` when it would run none (no profile, a kept one, an identity, an unusable one):
    /// for a decoder that converts its rows as it produces them (``ColorBandConverter``),
    /// which passes a grey profile only for a grey source.
    static func transform(for profile: ColorProfile?, options: ImageCoderOptions) -> ColorTransform? {
        guard let profile, kept(profile, options: options) == nil,
              let transform = try? ColorTransform.cache.transform(for: profile, input: .rgba),
              !transform.isIdentity
        else { return nil }
        return transform
    }

    /// ``apply(_:to:options:)`` for every frame of an animation.
    static func apply(_ profile: ColorProfile?, to frames: inout [ImageFrame], options: ImageCoderOptions) -> ColorProfile? {
        guard let profile else { return nil }
        if let kept = kept(profile, options: options) { return kept }
        // A grey profile applies to all the frames or none (one mis-tagged file).
        if profile.colorSpace == .gray, !frames.allSatisfy({ isGrey($0.pixels) }) { return nil }
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
    /// CMS cannot use and no default to fall back on. An embedded profile it cannot use
    /// (a damaged tag table) gives way to ``ImageCoderOptions/defaultCMYKProfile``, as
    /// libvips falls back to its own: the same file without a profile gets that one.
    static func cmykTransform(_ profile: ColorProfile?, inverted: Bool, options: ImageCoderOptions = ImageCoderOptions()) -> ColorTransform? {
        let input: ColorTransform.Input = inverted ? .invertedCMYK : .cmyk
        if let profile, let transform = try? ColorTransform.cache.transform(for: profile, input: input) { return transform }
        guard let fallback = options.defaultCMYKProfile, fallback.colorSpace == .cmyk, fallback != profile else { return nil }
        return try? ColorTransform.cache.transform(for: fallback, input: input)
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
