import CLCMS
import Foundation
import Testing
@testable import WebImage

/// Profiles that do not describe the pixels beside them, or that Little CMS cannot use:
/// the decode keeps the picture it can trust, as libvips and browsers do, instead of
/// converting through the wrong description.
@Suite struct MismatchedProfileTests {
    /// A grey profile with a 2.2 gamma, as Photoshop's "Gray Gamma 2.2", or another.
    static func greyProfile(gamma: Double = 2.2) throws -> ColorProfile {
        let curve = try #require(cmsBuildGamma(nil, gamma))
        defer { cmsFreeToneCurve(curve) }
        let profile = try #require(cmsCreateGrayProfile(cmsD50_xyY(), curve))
        defer { cmsCloseProfile(profile) }
        var size: cmsUInt32Number = 0
        try #require(cmsSaveProfileToMem(profile, nil, &size) != 0)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        try #require(cmsSaveProfileToMem(profile, &bytes, &size) != 0)
        return try ColorProfile(iccData: Data(bytes))
    }

    /// Display P3, as display-p3.jpg carries it.
    static func displayP3() throws -> ColorProfile {
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        let image = try JPEGCoder().decode(try ColorFixtureTests.fixture("display-p3.jpg"), options: keep)
        return try #require(image.colorProfile)
    }

    /// `jpeg` with `profile` in an APP2 segment right after its SOI.
    static func jpeg(_ jpeg: Data, carrying profile: ColorProfile) -> Data {
        let payload = Data("ICC_PROFILE\0".utf8) + Data([1, 1]) + profile.data
        let length = payload.count + 2
        var out = Data(jpeg.prefix(2))
        out += Data([0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]) + payload
        out += jpeg.dropFirst(2)
        return out
    }

    static func colourPixels() throws -> PixelBuffer {
        try ServerImages.quadrants(width: 64, height: 64)
    }

    /// A colour JPEG tagged with a grey profile (mis-tagging tools make them): the grey
    /// table, read from the red channel, turned the photo into a grey picture of its red.
    @Test func aGreyProfileOnAColourJPEGIsIgnored() throws {
        var quality = ImageCoderOptions()
        quality.compressionQuality = 0.95
        let plain = try JPEGCoder().encode(Image(pixels: Self.colourPixels(), hasAlpha: false), as: .jpeg, options: quality)
        let tagged = Self.jpeg(plain, carrying: try Self.greyProfile())
        let reference = try JPEGCoder().decode(plain, options: ImageCoderOptions()).frames[0].pixels
        for thumbnail in [nil, ImageSize(width: 16, height: 16)] {
            var options = ImageCoderOptions()
            options.thumbnailPixelSize = thumbnail
            let decoded = try JPEGCoder().decode(tagged, options: options).frames[0].pixels
            let expected = thumbnail == nil ? reference : try JPEGCoder().decode(plain, options: options).frames[0].pixels
            #expect(decoded.bytes.elementsEqual(expected.bytes), "thumbnail \(String(describing: thumbnail))")
            let topLeft = decoded[pixel: 2, 2]
            #expect(topLeft.red > 200 && topLeft.green < 60, "\(topLeft)")
        }
    }

    /// The same rule wherever a decoder converts whole frames: a grey profile converts grey
    /// pixels only.
    @Test func aGreyProfileConvertsOnlyGreyPixels() throws {
        let grey = try Self.greyProfile()
        var colour = try Self.colourPixels()
        let before = colour.bytes
        #expect(ColorConversion.apply(grey, to: &colour, options: ImageCoderOptions()) == nil)
        #expect(colour.bytes.elementsEqual(before), "the colour pixels were converted")
        var greys = try PixelBuffer(width: 4, height: 1, bytes: [0, 0, 0, 255, 64, 64, 64, 255, 128, 128, 128, 255, 255, 255, 255, 255])
        _ = ColorConversion.apply(grey, to: &greys, options: ImageCoderOptions())
        #expect(greys.bytes[4] != 64, "a grey image is still converted through its grey profile")
        #expect(greys.bytes[4] == greys.bytes[5] && greys.bytes[5] == greys.bytes[6])
    }

    /// Every grey value goes through the profile's own curve. Little CMS's optimised 8-bit
    /// transform sampled it at a few dozen points and interpolated: linear light, whose
    /// sRGB curve is steepest at the dark end, came out up to 10 levels dark there (3 became
    /// 19, not 28).
    @Test func aGreyProfilesCurveIsFollowedAtEveryLevel() throws {
        let linear = try Self.greyProfile(gamma: 1)
        var ramp = try PixelBuffer(width: 256, height: 1, bytes: (0..<256).flatMap { [UInt8($0), UInt8($0), UInt8($0), 255] })
        _ = ColorConversion.apply(linear, to: &ramp, options: ImageCoderOptions())
        var worst = 0
        for level in 0..<256 {
            let light = Double(level) / 255
            let srgb = light <= 0.0031308 ? 12.92 * light : 1.055 * pow(light, 1 / 2.4) - 0.055
            worst = max(worst, abs(Int(ramp.bytes[level * 4]) - Int((srgb * 255).rounded())))
        }
        #expect(worst <= 1, "largest difference \(worst) levels")
    }

    /// A CMYK TIFF is converted to sRGB through its CMYK profile (or the default) while it
    /// is read. An RGB profile in the same directory (written by a tool that tagged the
    /// document, not the pixels) was then applied too, converting them a second time.
    @Test func anRGBProfileInACMYKTIFFDoesNotConvertItsPixelsAgain() throws {
        // Red, green, blue and black ink, one pixel each.
        let inks: [UInt8] = [0, 255, 255, 0, 255, 0, 255, 0, 255, 255, 0, 0, 0, 0, 0, 200]
        let plain = try TinyTIFF.cmyk(width: 2, height: 2, inks: inks, icc: nil)
        let tagged = try TinyTIFF.cmyk(width: 2, height: 2, inks: inks, icc: Self.displayP3().data)
        let expected = try TIFFCoder().decode(plain, options: ImageCoderOptions()).frames[0].pixels
        let decoded = try TIFFCoder().decode(tagged, options: ImageCoderOptions()).frames[0].pixels
        #expect(decoded.bytes == expected.bytes)
        #expect(expected[pixel: 0, 0].red > 150 && expected[pixel: 0, 0].green < 100, "the ink was read as CMYK")
    }

    /// A profile whose header reads but whose tags Little CMS cannot use (here: none). Kept
    /// with ``ImageCoderOptions/keepsColorProfile``, it went on into the encoded result
    /// (a JPEG XL encode refused it, and the image server answered 500); it is dropped, and
    /// the pixels stay as they are, as when converting.
    @Test func anUnusableProfileIsNotKept() throws {
        var bytes = [UInt8](try Self.displayP3().data)
        // The tag count, right after the 128-byte header.
        for index in 128..<132 { bytes[index] = 0 }
        let broken = try ColorProfile(iccData: Data(bytes))
        #expect(broken.colorSpace == .rgb)
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        var pixels = try Self.colourPixels()
        let before = pixels.bytes
        #expect(ColorConversion.apply(broken, to: &pixels, options: keep) == nil)
        #expect(pixels.bytes.elementsEqual(before), "the pixels were changed")
        #expect(try ColorConversion.apply(Self.displayP3(), to: &pixels, options: keep) != nil, "a usable one is still kept")
    }

    /// A CMYK profile Little CMS cannot use gives way to the default CMYK profile, as the
    /// same file without any profile gets it; it fell to the naive formula instead.
    @Test func anUnusableCMYKProfileFallsBackToTheDefault() throws {
        var bytes = [UInt8](ColorProfile.coatedFOGRA39.data)
        for index in 128..<132 { bytes[index] = 0 }
        let broken = try ColorProfile(iccData: Data(bytes))
        #expect(broken.colorSpace == .cmyk)
        let inks: [UInt8] = [0, 255, 255, 0, 40, 30, 20, 10]
        let fallback = try #require(ColorConversion.cmykTransform(broken, inverted: false))
        let fogra = try #require(ColorConversion.cmykTransform(.coatedFOGRA39, inverted: false))
        var viaFallback = inks, viaFOGRA = inks
        viaFallback.withUnsafeMutableBufferPointer { fallback.convert($0) }
        viaFOGRA.withUnsafeMutableBufferPointer { fogra.convert($0) }
        #expect(viaFallback == viaFOGRA)
        var none = ImageCoderOptions()
        none.defaultCMYKProfile = nil
        #expect(ColorConversion.cmykTransform(broken, inverted: false, options: none) == nil, "no default: the naive formula")
    }
}

/// An ``AnimatedImage`` has no colour profile to hand on: its frames are sRGB whatever
/// the options say. Kept in the source's space (Display P3 here), they were shown and
/// encoded with the wrong colours (`webimage decode --frame 0 --metadata icc`, the
/// manager's frames-on-demand loads).
@Suite struct AnimatedImageColourTests {
    static var keep: ImageCoderOptions {
        var options = ImageCoderOptions()
        options.keepsColorProfile = true
        return options
    }

    @Test(arguments: ["display-p3-animated.webp", "display-p3-animated.png"])
    func lazyFramesAreConvertedEvenWhenTheProfileIsKept(_ file: String) throws {
        let data = try ColorFixtureTests.fixture(file)
        let kept = try AnimatedImage(data: data, options: Self.keep)
        let converted = try AnimatedImage(data: data)
        #expect(kept.frameCount > 1)
        for index in 0..<kept.frameCount {
            #expect(try kept.frame(at: index).bytes.elementsEqual(converted.frame(at: index).bytes), "frame \(index)")
        }
    }

    @Test func anImageKeptInItsOwnSpaceIsConvertedWhenItBecomesAnAnimation() throws {
        let data = try ColorFixtureTests.fixture("display-p3.jpg")
        let kept = try JPEGCoder().decode(data, options: Self.keep)
        #expect(kept.colorProfile != nil)
        let converted = try JPEGCoder().decode(data, options: ImageCoderOptions())
        #expect(AnimatedImage(image: kept).posterFrame.bytes.elementsEqual(converted.pixels.bytes))
        #expect(try AnimatedImage(data: data, options: Self.keep).posterFrame.bytes.elementsEqual(converted.pixels.bytes))
    }
}

/// A baseline TIFF written byte by byte: uncompressed, one strip, little-endian, for
/// directories no encoder of ours writes (CMYK with an ICC tag of any colour space).
enum TinyTIFF {
    static func cmyk(width: Int, height: Int, inks: [UInt8], icc: Data?) throws -> Data {
        try #require(inks.count == width * height * 4)
        var entries: [(tag: UInt16, type: UInt16, count: UInt32, value: UInt32)] = []
        var out = Data([0x49, 0x49, 42, 0, 8, 0, 0, 0])
        let bitsOffset = 8, iccOffset = 16, pixelsOffset = iccOffset + (icc?.count ?? 0)
        out += Data([8, 0, 8, 0, 8, 0, 8, 0])      // BitsPerSample: 8, 8, 8, 8
        if let icc { out += icc }
        out += Data(inks)
        if out.count % 2 == 1 { out.append(0) }
        let ifdOffset = out.count
        entries.append((256, 4, 1, UInt32(width)))                 // ImageWidth
        entries.append((257, 4, 1, UInt32(height)))                // ImageLength
        entries.append((258, 3, 4, UInt32(bitsOffset)))            // BitsPerSample
        entries.append((259, 3, 1, 1))                             // Compression: none
        entries.append((262, 3, 1, 5))                             // Photometric: separated
        entries.append((273, 4, 1, UInt32(pixelsOffset)))          // StripOffsets
        entries.append((277, 3, 1, 4))                             // SamplesPerPixel
        entries.append((278, 4, 1, UInt32(height)))                // RowsPerStrip
        entries.append((279, 4, 1, UInt32(inks.count)))            // StripByteCounts
        entries.append((284, 3, 1, 1))                             // PlanarConfiguration: chunky
        entries.append((332, 3, 1, 1))                             // InkSet: CMYK
        if let icc { entries.append((34675, 7, UInt32(icc.count), UInt32(iccOffset))) }
        func le16(_ value: UInt16) -> Data { Data([UInt8(value & 0xFF), UInt8(value >> 8)]) }
        func le32(_ value: UInt32) -> Data { Data((0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }) }
        out += le16(UInt16(entries.count))
        for entry in entries {
            out += le16(entry.tag) + le16(entry.type) + le32(entry.count)
            // A SHORT value that fits sits in the entry's first two bytes.
            out += entry.type == 3 && entry.count == 1 ? le16(UInt16(entry.value)) + le16(0) : le32(entry.value)
        }
        out += le32(0)
        out.replaceSubrange(4..<8, with: le32(UInt32(ifdOffset)))
        return out
    }
}
