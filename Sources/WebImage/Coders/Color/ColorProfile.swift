import CColorProfiles
import CLCMS
import Crypto
import Foundation

/// An ICC colour profile: the description of what a source's pixel values mean.
///
/// Decoders read one from the file (JPEG `APP2`, PNG `iCCP`, WebP `ICCP`, TIFF, AVIF and
/// HEIF `colr`) or build one from what the file says instead (PNG `gAMA`/`cHRM`, AVIF and
/// HEIF `nclx` primaries and transfer). By default they convert the pixels to sRGB with it
/// and drop it; with ``ImageCoderOptions/keepsColorProfile`` they keep the source's pixels
/// and attach it as ``Image/colorProfile``, which the JPEG, PNG, WebP, AVIF, HEIC and
/// JPEG XL encoders embed in what they write unless ``ImageCoderOptions/MetadataPolicy/strip``
/// says otherwise. A value: thread-safe, compared by its bytes.
///
/// ```swift
/// var options = ImageCoderOptions()
/// options.keepsColorProfile = true
/// let image = try CodersManager.shared.decode(data, options: options)
/// print(image.colorProfile?.name ?? "sRGB")   // "Display P3"
/// ```
public struct ColorProfile: Sendable, Hashable {
    /// The colour space a profile's device values are in.
    public enum ColorSpace: Sendable, Hashable {
        /// Red, green, blue.
        case rgb
        /// One grey channel.
        case gray
        /// Cyan, magenta, yellow, black (print files).
        case cmyk
        /// Anything else (Lab, XYZ, multi-ink): not used to convert pixels.
        case other
    }

    /// The profile as it is stored in files (the ICC format).
    public var data: Data { Data(bytes) }
    /// The ICC bytes. An array, not a `Data`: the built-in profiles (``sRGB``,
    /// ``coatedFOGRA39``, CIELab) live in globals for the life of the process, and
    /// LeakSanitizer (which the fuzz targets run after every input) cannot follow a
    /// `Data`'s storage pointer, whose enum case sits in the pointer's spare bits, so it
    /// reported them as leaked; an array's buffer pointer is a plain one.
    let bytes: [UInt8]
    /// The colour space of the pixel values the profile describes.
    public let colorSpace: ColorSpace
    /// SHA-256 of ``data``: the key under which transforms are cached, so that one
    /// transform serves every image carrying the same profile.
    let digest: [UInt8]

    /// The largest profile accepted. Real ones stay under 1 MiB (a CMYK profile with large
    /// lookup tables); a bigger "profile" in an untrusted file is refused before Little CMS
    /// parses it.
    static let maximumSize = 4 << 20

    /// Wraps the ICC bytes of a profile, checking the header only (size, the `acsp`
    /// signature): Little CMS parses the rest when a transform is first made. Fails with
    /// ``WebImageError/badImageData(_:)`` for anything that is not an ICC profile.
    public init(iccData: Data) throws {
        guard iccData.count >= 132, iccData.count <= Self.maximumSize else {
            throw WebImageError.badImageData("ICC profile of \(iccData.count) bytes")
        }
        let header = [UInt8](iccData.prefix(40))
        let declared = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        guard declared >= 132, declared <= iccData.count, Array(header[36..<40]) == Array("acsp".utf8) else {
            throw WebImageError.badImageData("not an ICC profile")
        }
        bytes = [UInt8](iccData.prefix(declared))
        switch String(decoding: header[16..<20], as: UTF8.self) {
        case "RGB ": colorSpace = .rgb
        case "GRAY": colorSpace = .gray
        case "CMYK": colorSpace = .cmyk
        default: colorSpace = .other
        }
        digest = Array(SHA256.hash(data: bytes))
    }

    /// Whether Little CMS refuses single allocations over
    /// `WEBIMAGE_LCMS_ALLOCATION_LIMIT` (48 MiB): installed once, before the first profile
    /// from a file is opened (every opening reads this first). A fuzzed CMYK profile of a
    /// few kilobytes declared a table that Little CMS allocated 233 MB for.
    static let allocationsLimited: Bool = webimage_lcms_limit_allocations() == 1

    /// The profile's description tag (`desc`), e.g. "Display P3"; `nil` when it has none
    /// or Little CMS cannot read the profile.
    public var name: String? {
        _ = Self.allocationsLimited
        return bytes.withUnsafeBytes { raw -> String? in
            guard let profile = cmsOpenProfileFromMem(raw.baseAddress, cmsUInt32Number(raw.count)) else { return nil }
            defer { cmsCloseProfile(profile) }
            let length = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", nil, 0)
            guard length > 1, length < 4096 else { return nil }
            var text = [CChar](repeating: 0, count: Int(length))
            _ = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", &text, length)
            let name = String(cBuffer: text)
            return name.isEmpty ? nil : name
        }
    }

    /// Two profiles are the same when their bytes are.
    public static func == (lhs: ColorProfile, rhs: ColorProfile) -> Bool {
        lhs.digest == rhs.digest
    }

    /// Hashes the bytes' digest.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
    }
}

extension ColorProfile: CustomStringConvertible {
    /// The name, colour space and size, e.g. `ColorProfile("Display P3", rgb, 536 bytes)`:
    /// what a failed test or a log shows, rather than every byte.
    public var description: String {
        "ColorProfile(\(name.map { "\"\($0)\"" } ?? "unnamed"), \(colorSpace), \(bytes.count) bytes)"
    }
}

extension ColorProfile {
    /// The sRGB profile Little CMS builds (IEC 61966-2.1), which every conversion targets.
    public static let sRGB: ColorProfile = {
        guard let profile = cmsCreate_sRGBProfile(), let made = try? saved(profile) else {
            preconditionFailure("Little CMS could not build its own sRGB profile")
        }
        return made
    }()

    /// "Coated FOGRA39": the CMYK profile of offset printing on coated paper (ISO 12647-2,
    /// the condition of Photoshop's "Coated FOGRA39" and of "ISO Coated v2"), fitted to
    /// Fogra's published measurements. The default ``ImageCoderOptions/defaultCMYKProfile``:
    /// a CMYK print file without a profile of its own shows the colours a press would give,
    /// as SDWebImage's ImageIO and imgproxy's libvips show them with their own default CMYK
    /// profiles, instead of the over-saturated naive conversion.
    public static let coatedFOGRA39: ColorProfile = {
        let bytes = Data(bytes: webimage_fogra39_profile_bytes(), count: webimage_fogra39_profile_size())
        guard let profile = try? ColorProfile(iccData: bytes), profile.colorSpace == .cmyk else {
            preconditionFailure("the compiled-in FOGRA39 profile is not a CMYK ICC profile")
        }
        return profile
    }()

    /// CIELab under D50, the ICC's connection space: what a TIFF with `Photometric` CIELab
    /// holds, as Pillow's `ImageCms.createProfile("LAB")` describes it.
    static let cieLab: ColorProfile? = {
        guard let profile = cmsCreateLab4Profile(nil) else { return nil }
        return try? saved(profile)
    }()

    /// The chromaticity (CIE xy) of a white point or a primary.
    struct Chromaticity: Equatable {
        var x: Double
        var y: Double

        /// D65, the white point of sRGB, Display P3, Adobe RGB and BT.2020.
        static let d65 = Chromaticity(x: 0.3127, y: 0.3290)
    }

    /// How stored values map to light: a parametric curve in Little CMS's terms.
    enum TransferCurve: Equatable {
        /// sRGB's curve (IEC 61966-2.1), also used for the BT.709 family as browsers do.
        case sRGB
        /// A pure power law: light = value^gamma.
        case gamma(Double)
    }

    /// An RGB matrix/shaper profile built from primaries, a white point and a transfer
    /// curve: what PNG's `cHRM`/`gAMA` and the `nclx` boxes of AVIF and HEIF describe.
    static func rgb(
        white: Chromaticity, red: Chromaticity, green: Chromaticity, blue: Chromaticity,
        transfer: TransferCurve
    ) throws -> ColorProfile {
        var whitePoint = cmsCIExyY(x: white.x, y: white.y, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: red.x, y: red.y, Y: 1),
            Green: cmsCIExyY(x: green.x, y: green.y, Y: 1),
            Blue: cmsCIExyY(x: blue.x, y: blue.y, Y: 1)
        )
        let curve: OpaquePointer?
        switch transfer {
        case .sRGB:
            // Type 4: Y = (aX + b)^g for X ≥ d, else cX; sRGB's constants.
            let parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            curve = cmsBuildParametricToneCurve(nil, 4, parameters)
        case .gamma(let gamma):
            curve = cmsBuildGamma(nil, gamma)
        }
        guard let curve else { throw WebImageError.badImageData("transfer curve not buildable") }
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard let profile = cmsCreateRGBProfile(&whitePoint, &primaries, &curves) else {
            throw WebImageError.badImageData("primaries do not make an RGB profile")
        }
        return try saved(profile)
    }

    /// The ICC bytes of a profile Little CMS built; closes it.
    private static func saved(_ profile: cmsHPROFILE) throws -> ColorProfile {
        defer { cmsCloseProfile(profile) }
        var length: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(profile, nil, &length) != 0, length > 0 else {
            throw WebImageError.badImageData("Little CMS could not write a profile")
        }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        guard cmsSaveProfileToMem(profile, &bytes, &length) != 0 else {
            throw WebImageError.badImageData("Little CMS could not write a profile")
        }
        return try ColorProfile(iccData: Data(bytes.prefix(Int(length))))
    }
}
