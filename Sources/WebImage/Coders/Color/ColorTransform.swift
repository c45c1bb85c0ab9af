import CLCMS
import Dispatch
import Foundation

/// A Little CMS transform from one source profile to 8-bit sRGB, made once per distinct
/// profile (``cache``) and applied to many images.
///
/// Perceptual intent, the intent browsers and Pillow's `profileToProfile` default to;
/// alpha is copied untouched. Four shapes, chosen from the profile and the pixels:
/// - RGB pixels with a matrix/shaper RGB profile (almost every photo's): ``MatrixShaper``,
///   the same arithmetic as lcms's in a few table look-ups per pixel.
/// - RGB pixels with another RGB profile (lookup tables): one lcms transform on RGBA, in place.
/// - RGB pixels whose source was grey (R = G = B) with a grey profile: a 256-entry table,
///   computed through lcms once, since a grey source has only 256 values.
/// - CMYK pixels (JPEG, TIFF) with a CMYK profile: ``CMYKTable``, lcms's transform sampled
///   on a grid once and interpolated, RGB written over the four ink bytes; alpha opaque.
/// - CIELab pixels (TIFF) with ``ColorProfile/cieLab``: lcms, in place, alpha copied.
/// A profile that changes no value (sRGB itself, or a copy under another name) is found
/// when the transform is made, by running a grid of colours through it, and then costs
/// nothing per image.
package final class ColorTransform: @unchecked Sendable {
    // @unchecked: the stored properties are immutable after init. The lcms transform is
    // made with cmsFLAGS_NOCACHE, which removes the one piece of state cmsDoTransform
    // writes (its last-pixel cache), so Little CMS documents such a transform as safe to
    // use from several threads at once; the handle is deleted only in deinit, when no
    // caller can hold the object any more.

    /// The transforms every decoder uses, one per profile and layout (32 at most).
    static let cache = ColorTransformCache(capacity: 32)

    /// What ``cache`` keys a transform by: the profile's SHA-256 and the pixel layout.
    struct CacheKey: Hashable, Sendable {
        var digest: [UInt8]
        var input: Input
    }

    /// The layout of the pixels handed to ``convert(_:)``.
    package enum Input: Hashable, Sendable {
        /// 8-bit RGBA (grey sources expanded to R = G = B).
        case rgba
        /// 8-bit CMYK, 0 = no ink.
        case cmyk
        /// 8-bit CMYK stored inverted (0 = full ink), as Adobe writes it in JPEG.
        case invertedCMYK
        /// 8-bit CIELab then alpha: L 0–255 for 0–100, a and b offset by 128.
        case lab
    }

    /// The transform, or `nil` for a grey table, a matrix/shaper or an identity.
    private let handle: cmsHTRANSFORM?
    /// For a matrix/shaper RGB source: its tables and matrix.
    private let shaper: MatrixShaper?
    /// For a grey source: the sRGB triple of each grey value, 256 × 3 bytes.
    private let grayTable: [UInt8]?
    /// For CMYK pixels: the transform sampled on a grid.
    private let cmykTable: CMYKTable?
    /// Whether converting changes no pixel, so callers skip it.
    let isIdentity: Bool
    /// Whether the conversion runs ``MatrixShaper`` rather than Little CMS: tests compare it
    /// with Little CMS's own transform.
    var usesMatrixShaper: Bool { shaper != nil }
    /// The pixel layout this transform reads.
    let input: Input

    /// Makes the transform from `profile` for pixels laid out as `input`. Fails with
    /// ``WebImageError/badImageData(_:)`` when Little CMS cannot read the profile or the
    /// profile does not describe such pixels (a CMYK profile on RGB data).
    package init(profile: ColorProfile, input: Input) throws {
        self.input = input
        _ = ColorProfile.allocationsLimited
        let source = try profile.bytes.withUnsafeBytes { raw -> cmsHPROFILE in
            guard let opened = cmsOpenProfileFromMem(raw.baseAddress, cmsUInt32Number(raw.count)) else {
                throw WebImageError.badImageData("ICC profile unreadable")
            }
            return opened
        }
        defer { cmsCloseProfile(source) }
        guard let sRGB = cmsCreate_sRGBProfile() else { throw WebImageError.badImageData("no sRGB profile") }
        defer { cmsCloseProfile(sRGB) }
        let space = cmsGetColorSpace(source)
        let flags = cmsUInt32Number(cmsFLAGS_NOCACHE)
        switch (input, space) {
        case (.rgba, cmsSigRgbData):
            guard let made = cmsCreateTransform(
                source, clcms_type_rgba_8, sRGB, clcms_type_rgba_8, cmsUInt32Number(INTENT_PERCEPTUAL),
                flags | cmsUInt32Number(cmsFLAGS_COPY_ALPHA))
            else { throw WebImageError.badImageData("ICC profile gives no RGB transform") }
            let identity = Self.changesNothing(made)
            shaper = identity ? nil : MatrixShaper(source, sRGB: sRGB)
            if identity || shaper != nil { cmsDeleteTransform(made) }
            handle = identity || shaper != nil ? nil : made
            grayTable = nil
            cmykTable = nil
            isIdentity = identity
        case (.rgba, cmsSigGrayData):
            // Unoptimised: Little CMS would otherwise sample the curve at a few dozen points
            // and interpolate between them, and a steep curve's dark end (linear light to
            // sRGB) came out up to 10 levels dark. The table is made once, of 256 values.
            guard let made = cmsCreateTransform(
                source, clcms_type_gray_8, sRGB, clcms_type_rgb_8, cmsUInt32Number(INTENT_PERCEPTUAL),
                flags | cmsUInt32Number(cmsFLAGS_NOOPTIMIZE))
            else { throw WebImageError.badImageData("ICC profile gives no grey transform") }
            defer { cmsDeleteTransform(made) }
            let greys = (0...255).map { UInt8($0) }
            var table = [UInt8](repeating: 0, count: 256 * 3)
            cmsDoTransform(made, greys, &table, 256)
            handle = nil
            shaper = nil
            cmykTable = nil
            isIdentity = (0..<256).allSatisfy { grey in
                (0..<3).allSatisfy { abs(Int(table[grey * 3 + $0]) - grey) <= 1 }
            }
            grayTable = isIdentity ? nil : table
        case (.cmyk, cmsSigCmykData), (.invertedCMYK, cmsSigCmykData):
            guard let made = cmsCreateTransform(
                source, clcms_type_cmyk_16, sRGB, clcms_type_rgb_16, cmsUInt32Number(INTENT_PERCEPTUAL), flags)
            else { throw WebImageError.badImageData("ICC profile gives no CMYK transform") }
            defer { cmsDeleteTransform(made) }
            cmykTable = CMYKTable(sampling: made, inverted: input == .invertedCMYK)
            handle = nil
            shaper = nil
            grayTable = nil
            isIdentity = false
        case (.lab, cmsSigLabData):
            guard let made = cmsCreateTransform(
                source, clcms_type_laba_8, sRGB, clcms_type_rgba_8, cmsUInt32Number(INTENT_PERCEPTUAL),
                flags | cmsUInt32Number(cmsFLAGS_COPY_ALPHA))
            else { throw WebImageError.badImageData("no CIELab transform") }
            handle = made
            shaper = nil
            grayTable = nil
            cmykTable = nil
            isIdentity = false
        default:
            throw WebImageError.badImageData("ICC profile does not describe the image's pixels")
        }
    }

    deinit {
        if let handle { cmsDeleteTransform(handle) }
    }

    /// Converts `pixels` (laid out as ``input``, four bytes each) to sRGB RGBA in place.
    package func convert(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
        guard !isIdentity, let base = pixels.baseAddress else { return }
        let count = pixels.count / 4
        if let grayTable {
            grayTable.withUnsafeBufferPointer { table in
                var i = 0
                while i < count * 4 {
                    let t = Int(pixels[i]) * 3
                    pixels[i] = table[t]; pixels[i + 1] = table[t + 1]; pixels[i + 2] = table[t + 2]
                    i += 4
                }
            }
            return
        }
        if let shaper {
            Self.inParts(pixels, shaper)
            return
        }
        if let cmykTable {
            cmykTable.convert(pixels)
            return
        }
        guard let handle else { return }
        // cmsDoTransform counts pixels in 32 bits; a bounded slice also keeps each call short.
        let slice = 1 << 20
        var done = 0
        while done < count {
            let n = min(slice, count - done)
            let start = base + done * 4
            cmsDoTransform(handle, start, start, cmsUInt32Number(n))
            done += n
        }
    }

    /// Images from this many pixels up are converted in parts on all cores: below it,
    /// handing the parts out costs more than the parts take (a 1 MP conversion is about 2 ms).
    static let parallelPixelCount = 1 << 20

    /// Runs `shaper` over `pixels` (four bytes each): in one go below
    /// ``parallelPixelCount``, else in disjoint parts, one per core, the calling thread
    /// doing one of them. The conversion then costs its wall time divided by the cores; its
    /// CPU time stays the same.
    private static func inParts(_ pixels: UnsafeMutableBufferPointer<UInt8>, _ shaper: MatrixShaper) {
        let count = pixels.count / 4
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard count >= parallelPixelCount, cores > 1 else {
            shaper.convert(pixels)
            return
        }
        let perPart = (count + cores - 1) / cores
        let whole = Pixels(bytes: pixels)
        DispatchQueue.concurrentPerform(iterations: cores) { part in
            let start = part * perPart, end = min(count, start + perPart)
            guard start < end else { return }
            shaper.convert(UnsafeMutableBufferPointer(rebasing: whole.bytes[start * 4..<end * 4]))
        }
    }

    /// The caller's pixels, shared by the parts of one conversion.
    private struct Pixels: @unchecked Sendable {
        // @unchecked: concurrentPerform returns only when every part is done, so the bytes
        // (the caller's buffer) outlive every use, and each part writes its own disjoint
        // range of whole pixels: no two threads touch the same byte.
        let bytes: UnsafeMutableBufferPointer<UInt8>
    }

    /// Little CMS as the loaded library reports itself: its encoded version 2140 is "2.14".
    static var linkedLibrary: LinkedLibrary {
        let encoded = Int(cmsGetEncodedCMMversion())
        return LinkedLibrary(name: "lcms2", version: "\(encoded / 1000).\(encoded % 1000 / 10)")
    }

    /// Whether an RGBA → RGBA transform leaves a grid of colours (every combination of
    /// six levels per channel, and the full grey ramp) within one step of where they were:
    /// then the source is sRGB in all but name.
    private static func changesNothing(_ transform: cmsHTRANSFORM) -> Bool {
        let levels: [UInt8] = [0, 51, 102, 153, 204, 255]
        var samples: [UInt8] = []
        for r in levels { for g in levels { for b in levels { samples += [r, g, b, 255] } } }
        for grey in 0...255 { samples += [UInt8(grey), UInt8(grey), UInt8(grey), 255] }
        var converted = [UInt8](repeating: 0, count: samples.count)
        cmsDoTransform(transform, samples, &converted, cmsUInt32Number(samples.count / 4))
        return zip(samples, converted).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
    }
}
