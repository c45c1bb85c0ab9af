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
}
