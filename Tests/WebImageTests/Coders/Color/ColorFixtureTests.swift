import Foundation
import Testing
@testable import WebImage

/// Sources carrying a colour description decode to what Little CMS itself makes of them:
/// each fixture in Fixtures/color/ has beside it Pillow + ImageCms's sRGB conversion of
/// the same file (scripts/make-color-fixtures.py), and ours must agree within 40 dB PSNR.
/// The HDR fixtures' expectation is the SDR picture they were written from.
@Suite struct ColorFixtureTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        /// What a decode without conversion would be off by at least: proves the case
        /// tests a real conversion, not a profile that changes nothing.
        let unconvertedBelow: Double?
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        Case(file: "srgb.jpg", unconvertedBelow: nil),
        Case(file: "display-p3.jpg", unconvertedBelow: 40),
        Case(file: "display-p3.png", unconvertedBelow: 40),
        Case(file: "display-p3.webp", unconvertedBelow: 40),
        Case(file: "display-p3.avif", unconvertedBelow: 40),
        Case(file: "display-p3.heic", unconvertedBelow: 40),
        Case(file: "adobe-rgb.jpg", unconvertedBelow: 40),
        Case(file: "adobe-rgb.tiff", unconvertedBelow: 40),
        Case(file: "prophoto.jpg", unconvertedBelow: 40),
        Case(file: "gray.jpg", unconvertedBelow: 40),
        Case(file: "cmyk-profile.jpg", unconvertedBelow: 40),
        Case(file: "cmyk.jpg", unconvertedBelow: nil),
        Case(file: "gama-chrm.png", unconvertedBelow: 40),
        // CIELab pixels are converted whatever the options say (they cannot be shown as
        // they are); libtiff's own Lab conversion, used before, scored 22 dB here.
        Case(file: "cielab.tiff", unconvertedBelow: nil),
        // CMYK is converted whatever the options say; cmyk.tiff holds the same pixels as
        // cmyk-profile.tiff without the profile (``cmykTIFFIsConvertedThroughItsProfile``).
        Case(file: "cmyk-profile.tiff", unconvertedBelow: nil),
        Case(file: "cmyk.tiff", unconvertedBelow: nil),
        // HDR (BT.2020, 10 bits) written from a picture kept under the tone curve's knee:
        // the expectation is that picture (not Little CMS's, which has no PQ or HLG), and
        // HDR is tone-mapped whether or not a profile is kept (HDRToneMappingTests).
        Case(file: "hdr-pq.heic", unconvertedBelow: nil),
        Case(file: "hdr-hlg.heic", unconvertedBelow: nil),
        Case(file: "hdr-pq.avif", unconvertedBelow: nil),
    ]

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("color").appendingPathComponent(name))
    }

    /// Peak signal-to-noise ratio over the colour channels, in dB (infinite when equal).
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        guard a.size == b.size else { return 0 }
        var squares = 0.0
        for index in a.bytes.indices where index % 4 != 3 {
            let d = Double(Int(a.bytes[index]) - Int(b.bytes[index]))
            squares += d * d
        }
        let mse = squares / Double(a.width * a.height * 3)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    @Test(arguments: cases)
    func decodesToLittleCMSsConversion(_ testCase: Case) throws {
        let expected = try PNGCoder().decode(try Self.fixture(testCase.file + ".expected.png"), options: ImageCoderOptions())
        let image = try CodersManager.shared.decode(try Self.fixture(testCase.file))
        #expect(image.colorProfile == nil)
        let psnr = Self.psnr(image.pixels, expected.pixels)
        #expect(psnr >= 40, "\(testCase.file): \(psnr) dB")
        print("colour fixture \(testCase.file): PSNR \(psnr) dB")
        if let below = testCase.unconvertedBelow {
            let unconverted = try Self.unconverted(testCase.file)
            #expect(Self.psnr(unconverted.pixels, expected.pixels) < below, "\(testCase.file) needs no conversion")
        }
    }

    /// A CMYK TIFF goes through its own profile: its expectation is far from the naive
    /// conversion of the same pixels (cmyk.tiff, no profile), which libtiff's reader gave.
    @Test func cmykTIFFIsConvertedThroughItsProfile() throws {
        let profiled = try CodersManager.shared.decode(try Self.fixture("cmyk-profile.tiff"))
        let naive = try PNGCoder().decode(try Self.fixture("cmyk.tiff.naive.png"), options: ImageCoderOptions())
        let fogra39 = try PNGCoder().decode(try Self.fixture("cmyk.tiff.expected.png"), options: ImageCoderOptions())
        #expect(Self.psnr(profiled.pixels, naive.pixels) < 35)
        #expect(Self.psnr(profiled.pixels, fogra39.pixels) < 35)
        #expect(!profiled.hasAlpha)
        #expect(!profiled.pixels.containsTransparency)
    }

    /// CMYK without a profile of its own goes through ``ImageCoderOptions/defaultCMYKProfile``:
    /// by default ``ColorProfile/coatedFOGRA39`` (cmyk.jpg's and cmyk.tiff's expectations,
    /// the `cases` above, are Little CMS's conversion through it, far from the naive one);
    /// with cmyk-lut.icc as the default, what the same pixels carrying that profile give;
    /// with `nil`, or a default that is not CMYK, the naive conversion.
    @Test(arguments: ["jpg", "tiff"])
    func cmykWithoutAProfileTakesTheDefaultOne(ext: String) throws {
        let source = try Self.fixture("cmyk.\(ext)")
        let profiled = try PNGCoder().decode(try Self.fixture("cmyk-profile.\(ext).expected.png"), options: ImageCoderOptions())
        let naive = try PNGCoder().decode(try Self.fixture("cmyk.\(ext).naive.png"), options: ImageCoderOptions())
        let fogra39 = try PNGCoder().decode(try Self.fixture("cmyk.\(ext).expected.png"), options: ImageCoderOptions())
        #expect(Self.psnr(naive.pixels, fogra39.pixels) < 35)

        let byDefault = try CodersManager.shared.decode(source)
        #expect(Self.psnr(byDefault.pixels, fogra39.pixels) >= 40)
        #expect(Self.psnr(byDefault.pixels, naive.pixels) < 35)

        var options = ImageCoderOptions()
        options.defaultCMYKProfile = try ColorProfile(iccData: try Self.fixture("cmyk-lut.icc"))
        let withLUT = try CodersManager.shared.decode(source, options: options)
        #expect(Self.psnr(withLUT.pixels, profiled.pixels) >= 40)
        #expect(Self.psnr(withLUT.pixels, naive.pixels) < 35)

        for notCMYK in [nil, ColorProfile.sRGB] {
            options.defaultCMYKProfile = notCMYK
            #expect(Self.psnr(try CodersManager.shared.decode(source, options: options).pixels, naive.pixels) >= 40)
        }
    }

    /// The compiled-in default is the CMYK profile its fixtures were made with: it parses,
    /// describes CMYK and names itself.
    @Test func theDefaultCMYKProfileIsCoatedFOGRA39() throws {
        #expect(ColorProfile.coatedFOGRA39.colorSpace == .cmyk)
        #expect(ColorProfile.coatedFOGRA39.name == "Coated FOGRA39 (swift-web-image)")
        #expect(ImageCoderOptions().defaultCMYKProfile == .coatedFOGRA39)
    }

    /// Which profile CMYK converts through: the file's own CMYK one, else the default if it
    /// is CMYK, else none (the naive conversion).
    @Test func theFilesOwnCMYKProfileRulesOverTheDefault() throws {
        let own = try ColorProfile(iccData: try Self.fixture("cmyk-lut.icc"))
        // Another CMYK profile: the same bytes with one byte of its description changed.
        var bytes = try Self.fixture("cmyk-lut.icc")
        let description = try #require(bytes.firstRange(of: Data("Fixture CMYK".utf8)))
        bytes[description.lowerBound] = UInt8(ascii: "f")
        let other = try ColorProfile(iccData: bytes)
        #expect(other != own)
        var options = ImageCoderOptions()
        #expect(ColorConversion.cmykProfile(embedded: own, options: options) == own)
        #expect(ColorConversion.cmykProfile(embedded: nil, options: options) == .coatedFOGRA39)
        options.defaultCMYKProfile = nil
        #expect(ColorConversion.cmykProfile(embedded: own, options: options) == own)
        #expect(ColorConversion.cmykProfile(embedded: nil, options: options) == nil)
        options.defaultCMYKProfile = other
        #expect(ColorConversion.cmykProfile(embedded: own, options: options) == own)
        #expect(ColorConversion.cmykProfile(embedded: nil, options: options) == other)
        #expect(ColorConversion.cmykProfile(embedded: .sRGB, options: options) == other)
        options.defaultCMYKProfile = .sRGB
        #expect(ColorConversion.cmykProfile(embedded: nil, options: options) == nil)
    }

    /// The fixture decoded without its colour description: a JPEG with its APP2 markers
    /// removed (grey and CMYK are converted even when a profile is kept), others with
    /// ``ImageCoderOptions/keepsColorProfile``.
    static func unconverted(_ file: String) throws -> Image {
        let data = try fixture(file)
        guard file.hasSuffix(".jpg") else {
            var keep = ImageCoderOptions()
            keep.keepsColorProfile = true
            return try CodersManager.shared.decode(data, options: keep)
        }
        var bytes = [UInt8](data)
        var at = 2
        while at + 4 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] != 0xDA {
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if bytes[at + 1] == 0xE2 {
                bytes.removeSubrange(at..<at + 2 + length)
            } else {
                at += 2 + length
            }
        }
        let image = try JPEGCoder().decode(Data(bytes), options: ImageCoderOptions())
        #expect(image.colorProfile == nil)
        return image
    }

    @Test func thumbnailsConvertToo() throws {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 48, height: 32)
        let expected = try PNGCoder().decode(try Self.fixture("display-p3.jpg.expected.png"), options: options)
        let thumbnail = try JPEGCoder().decode(try Self.fixture("display-p3.jpg"), options: options)
        options.keepsColorProfile = true
        let unconverted = try JPEGCoder().decode(try Self.fixture("display-p3.jpg"), options: options)
        #expect(thumbnail.size == ImageSize(width: 48, height: 32))
        // Resizing before the conversion (ours) or after it (the expectation's) differs a
        // little at the saturated patches' edges, far less than leaving the colours alone.
        let converted = Self.psnr(thumbnail.pixels, expected.pixels)
        #expect(converted >= 30)
        #expect(converted > Self.psnr(unconverted.pixels, expected.pixels) + 6)
    }

    @Test(arguments: ["display-p3-animated.png", "display-p3-animated.webp"])
    func animationsConvertEveryFrameLazilyAndAtOnce(file: String) throws {
        let data = try Self.fixture(file)
        let expected = try PNGCoder().decode(try Self.fixture(file + ".expected.png"), options: ImageCoderOptions())
        let whole = try CodersManager.shared.decode(data)
        #expect(whole.frameCount == 2)
        #expect(Self.psnr(whole.pixels, expected.pixels) >= 40)
        let source: any AnimatedImageCoder = file.hasSuffix(".png")
            ? try APNGFrameSource(animatedImageData: data, options: ImageCoderOptions())
            : try WebPFrameSource(animatedImageData: data, options: ImageCoderOptions())
        #expect(try source.frame(at: 0) == whole.frames[0].pixels)
        #expect(try source.frame(at: 1) == whole.frames[1].pixels)
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        let stored = try CodersManager.shared.decode(data, options: keep)
        #expect(stored.colorProfile?.name == "Display P3")
        #expect(Self.psnr(stored.pixels, expected.pixels) < 40)
    }

    @Test func sixteenBitPNGRoundsToEightBits() throws {
        let image = try PNGCoder().decode(try Self.fixture("gray16.png"), options: ImageCoderOptions())
        #expect(image.size == ImageSize(width: 64, height: 16))
        var truncatedWouldDiffer = false
        for y in 0..<16 {
            for x in 0..<64 {
                let value = x * 1021 + y * 7
                let rounded = (value * 255 + 32767) / 65535
                if rounded != value >> 8 { truncatedWouldDiffer = true }
                let p = image.pixels[pixel: x, y]
                #expect(Int(p.red) == rounded && p.green == p.red && p.blue == p.red && p.alpha == 255, "(\(x), \(y)): \(p) for \(value)")
            }
        }
        #expect(truncatedWouldDiffer)
    }
}
