import CTIFF

/// Colours libtiff's RGBA reader converts less exactly than the coder does, read through
/// that reader all the same (it takes every layout: strips, tiles, planes, compressions):
/// the in-memory directory (the file is untouched) is told the pixels are RGB, so the
/// reader hands the stored bytes over unchanged, and the coder converts them itself.
///
/// - 8-bit CIELab: libtiff assumes a D50 display and does not adapt to sRGB's D65 white:
///   white came out (255, 252, 222) and dark tones crushed, up to 49 levels from a
///   colour-managed conversion. Converted here through Little CMS (D50 Lab, perceptual),
///   as Pillow does. 16-bit and premultiplied Lab keep libtiff's conversion.
/// - 8-bit CMYK (four samples, no extra ones): libtiff's naive formula truncates and cannot
///   use the file's profile. Converted here through the file's CMYK ICC profile when it
///   has one (print files: the profile is what makes their colours right), else
///   ``ImageCoderOptions/defaultCMYKProfile``, else with the naive formula rounded, as
///   Pillow and the JPEG decoder do.
extension TIFFCoder {
    /// What the reader was told to pass through, to convert afterwards.
    enum PassedThroughColour: Equatable {
        /// L, a, b (a and b signed) and alpha.
        case cieLab
        /// C, M, Y, K (0 = no ink), read as R, G, B and an associated alpha.
        case cmyk
    }

    /// Rewrites the directory so the RGBA reader passes this directory's colour through,
    /// when it is one converted here; returns which.
    static func passColourThrough(_ tiff: OpaquePointer) throws -> PassedThroughColour? {
        var photometric: UInt16 = 0, bits: UInt16 = 0, samples: UInt16 = 1, inks = UInt16(INKSET_CMYK)
        guard field(tiff, UInt32(TIFFTAG_PHOTOMETRIC), &photometric),
              field(tiff, UInt32(TIFFTAG_BITSPERSAMPLE), &bits), bits == 8
        else { return nil }
        _ = field(tiff, UInt32(TIFFTAG_SAMPLESPERPIXEL), &samples)
        _ = field(tiff, UInt32(TIFFTAG_INKSET), &inks)
        let passed: PassedThroughColour
        switch Int32(photometric) {
        case PHOTOMETRIC_CIELAB where extraSamples(tiff)?.first != UInt16(EXTRASAMPLE_ASSOCALPHA):
            // Premultiplied Lab (signed a and b scaled by alpha) is left to libtiff.
            passed = .cieLab
        case PHOTOMETRIC_SEPARATED where samples == 4 && inks == UInt16(INKSET_CMYK) && extraSamples(tiff) == nil:
            // K as an associated alpha: the reader copies it as it is, never premultiplying.
            try setExtraSamples(tiff, [UInt16(EXTRASAMPLE_ASSOCALPHA)])
            passed = .cmyk
        default:
            return nil
        }
        let set = withVaList([Int32(PHOTOMETRIC_RGB)]) { TIFFVSetField(tiff, UInt32(TIFFTAG_PHOTOMETRIC), $0) }
        guard set == 1 else { throw WebImageError.badImageData("TIFF Photometric could not be read") }
        return passed
    }

    /// Converts the passed-through pixels to sRGB RGBA in place; `profile` is the file's.
    static func convert(
        _ pixels: inout PixelBuffer, from colour: PassedThroughColour, profile: ColorProfile?, options: ImageCoderOptions
    ) throws {
        switch colour {
        case .cieLab:
            guard let lab = ColorProfile.cieLab,
                  let transform = try? ColorTransform.cache.transform(for: lab, input: .lab)
            else { throw WebImageError.badImageData("CIELab TIFF: no Lab transform") }
            pixels.bytes.withUnsafeMutableBufferPointer { bytes in
                // TIFF's a and b are signed; Little CMS's 8-bit Lab is offset by 128.
                for i in Swift.stride(from: 0, to: bytes.count, by: 4) {
                    bytes[i + 1] ^= 0x80
                    bytes[i + 2] ^= 0x80
                }
                transform.convert(bytes)
            }
        case .cmyk:
            let transform = ColorConversion.cmykTransform(ColorConversion.cmykProfile(embedded: profile, options: options), inverted: false, options: options)
            pixels.bytes.withUnsafeMutableBufferPointer { bytes in
                if let transform {
                    transform.convert(bytes)
                } else {
                    ColorConversion.convertNaiveCMYK(bytes, inverted: false)
                }
            }
        }
    }
}
