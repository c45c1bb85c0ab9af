import Foundation
import Testing
@testable import WebImage

/// 16-bit TIFF samples rounded to 8 bits (`round(v / 257)`), not cut to their high byte:
/// hand-built uncompressed files in both byte orders, grey and RGB, with straight and
/// premultiplied alpha, each pixel's expected value computed from its 16-bit samples.
/// (gray16.tif in ``TIFFCoderTests`` is the same check on a file Pillow wrote.)
@Suite struct TIFFSixteenBitTests {
    /// An uncompressed, single-strip 16-bit TIFF. `extra`: ExtraSamples' value (1 associated
    /// alpha, 2 unassociated, 0 unspecified), for a file with one more sample than colours.
    static func tiff(
        width: Int, height: Int, samples: Int, photometric: Int,
        extra: Int? = nil, littleEndian: Bool, values: [UInt16]
    ) -> Data {
        var out: [UInt8] = []
        func u16(_ v: Int) { let b = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]; out += littleEndian ? b : b.reversed() }
        func u32(_ v: Int) {
            u16(littleEndian ? v & 0xFFFF : v >> 16)
            u16(littleEndian ? v >> 16 : v & 0xFFFF)
        }
        out += littleEndian ? [0x49, 0x49, 0x2A, 0] : [0x4D, 0x4D, 0, 0x2A]
        u32(8)
        var entries: [(tag: Int, type: Int, count: Int, value: Int)] = [
            (256, 4, 1, width), (257, 4, 1, height), (258, 3, samples, 0), (259, 3, 1, 1), (262, 3, 1, photometric),
            (273, 4, 1, 0), (277, 3, 1, samples), (278, 4, 1, height), (279, 4, 1, values.count * 2), (284, 3, 1, 1),
        ]
        if let extra { entries.append((338, 3, 1, extra)) }
        let ifdSize = 2 + entries.count * 12 + 4
        let bitsOffset = 8 + ifdSize
        let pixelOffset = bitsOffset + (samples > 2 ? samples * 2 : 0)
        u16(entries.count)
        for entry in entries {
            u16(entry.tag); u16(entry.type); u32(entry.count)
            switch entry.tag {
            case 258 where samples > 2: u32(bitsOffset)
            case 258: u16(16); u16(samples == 2 ? 16 : 0)
            case 273: u32(pixelOffset)
            case _ where entry.type == 3: u16(entry.value); u16(0)
            default: u32(entry.value)
            }
        }
        u32(0)
        if samples > 2 { for _ in 0..<samples { u16(16) } }
        for value in values { u16(Int(value)) }
        return Data(out)
    }

    static func rounded(_ value: Int) -> UInt8 { UInt8((Double(value) / 257).rounded()) }

    /// Values that truncation and rounding put on different 8-bit levels.
    static let probes: [UInt16] = [0, 128, 129, 393, 385, 32_767, 32_896, 65_407, 65_535, 1_000, 40_000, 257]

    @Test(arguments: [true, false])
    func greyIsRoundedInEitherByteOrder(littleEndian: Bool) throws {
        let data = Self.tiff(width: Self.probes.count, height: 1, samples: 1, photometric: 1, littleEndian: littleEndian, values: Self.probes)
        let image = try TIFFCoder().decode(data, options: ImageCoderOptions())
        for (x, value) in Self.probes.enumerated() {
            let expected = Self.rounded(Int(value))
            #expect(image.pixels[pixel: x, 0] == RGBAColor(red: expected, green: expected, blue: expected, alpha: 255), "sample \(value)")
        }
        #expect(!image.hasAlpha)
    }

    @Test func rgbWithStraightAlphaIsRoundedPerSample() throws {
        let pixels: [[UInt16]] = [[393, 40_000, 65_535, 128], [0, 129, 32_896, 65_535], [257, 1_000, 65_407, 32_767]]
        let data = Self.tiff(width: 3, height: 1, samples: 4, photometric: 2, extra: 2, littleEndian: false, values: pixels.flatMap { $0 })
        let image = try TIFFCoder().decode(data, options: ImageCoderOptions())
        #expect(image.hasAlpha)
        for (x, pixel) in pixels.enumerated() {
            let expected = RGBAColor(red: Self.rounded(Int(pixel[0])), green: Self.rounded(Int(pixel[1])),
                                     blue: Self.rounded(Int(pixel[2])), alpha: Self.rounded(Int(pixel[3])))
            #expect(image.pixels[pixel: x, 0] == expected, "pixel \(x)")
        }
    }

    /// Premultiplied colour is divided by its alpha at 16 bits, then rounded: a faint pixel
    /// (alpha 300 of 65,535) keeps its hue, which dividing 8-bit values could not do.
    @Test func premultipliedAlphaIsUndoneBeforeRounding() throws {
        let pixels: [[UInt16]] = [[150, 75, 0, 300], [32_768, 16_384, 0, 32_768], [0, 0, 0, 0], [7_000, 0, 0, 65_535]]
        let data = Self.tiff(width: 4, height: 1, samples: 4, photometric: 2, extra: 1, littleEndian: true, values: pixels.flatMap { $0 })
        let image = try TIFFCoder().decode(data, options: ImageCoderOptions())
        #expect(image.pixels[pixel: 0, 0] == RGBAColor(red: 128, green: 64, blue: 0, alpha: 1))
        #expect(image.pixels[pixel: 1, 0] == RGBAColor(red: 255, green: 128, blue: 0, alpha: 128))
        #expect(image.pixels[pixel: 2, 0].alpha == 0)
        #expect(image.pixels[pixel: 3, 0] == RGBAColor(red: 27, green: 0, blue: 0, alpha: 255))
    }

    @Test func greyWithAlphaAndAnUnspecifiedExtraSample() throws {
        let values: [UInt16] = [393, 65_535, 40_000, 129]
        let alpha = try TIFFCoder().decode(
            Self.tiff(width: 2, height: 1, samples: 2, photometric: 1, extra: 2, littleEndian: true, values: values), options: ImageCoderOptions())
        #expect(alpha.hasAlpha)
        #expect(alpha.pixels[pixel: 0, 0] == RGBAColor(red: 2, green: 2, blue: 2, alpha: 255))
        #expect(alpha.pixels[pixel: 1, 0] == RGBAColor(red: 156, green: 156, blue: 156, alpha: 1))
        // An extra sample that is not said to be alpha is not alpha (as libtiff reads it).
        let unspecified = try TIFFCoder().decode(
            Self.tiff(width: 2, height: 1, samples: 2, photometric: 1, extra: 0, littleEndian: true, values: values), options: ImageCoderOptions())
        #expect(!unspecified.hasAlpha)
        #expect(unspecified.pixels[pixel: 1, 0] == RGBAColor(red: 156, green: 156, blue: 156, alpha: 255))
    }

    /// A strip shorter than its rows claim is an error, not uninitialised pixels.
    @Test func aTruncatedStripIsBadData() throws {
        let data = Self.tiff(width: 64, height: 64, samples: 1, photometric: 1, littleEndian: true, values: [UInt16](repeating: 1_000, count: 64 * 64))
        #expect(throws: WebImageError.self) { try TIFFCoder().decode(data.prefix(data.count - 4_000), options: ImageCoderOptions()) }
    }
}
