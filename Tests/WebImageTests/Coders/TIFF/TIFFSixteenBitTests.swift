import Foundation
import Testing
@testable import WebImage

/// 16-bit TIFF samples rounded to 8 bits (`round(v / 257)`), not cut to their high byte:
/// hand-built uncompressed files in both byte orders, grey and RGB, with straight and
/// premultiplied alpha, each pixel's expected value computed from its 16-bit samples.
/// (gray16.tif in ``TIFFCoderTests`` is the same check on a file Pillow wrote.)
@Suite struct TIFFSixteenBitTests {
    /// How the helper cuts the pixels into blocks.
    enum Blocks {
        /// Strips of this many rows (`Int.max`: one strip).
        case strips(rows: Int)
        case tiles(width: Int, height: Int)
    }

    /// An uncompressed 16-bit TIFF of `values` (all samples of each pixel, row by row), cut
    /// into `blocks`, interleaved or one plane per sample. `extra`: ExtraSamples' value (1
    /// associated alpha, 2 unassociated, 0 unspecified), for a file with one more sample
    /// than colours. Tiles past the image's edges are padded with `padding`, which a
    /// correct reader never shows.
    static func tiff(
        width: Int, height: Int, samples: Int, photometric: Int,
        extra: Int? = nil, littleEndian: Bool, values: [UInt16],
        blocks: Blocks = .strips(rows: .max), planar: Bool = false, padding: UInt16 = 0xBEEF
    ) -> Data {
        // The blocks in libtiff's numbering: plane by plane, then row-major.
        let (blockWidth, blockHeight, tiled): (Int, Int, Bool) = switch blocks {
        case .strips(let rows): (width, min(rows, height), false)
        case .tiles(let tileWidth, let tileHeight): (tileWidth, tileHeight, true)
        }
        var payloads: [[UInt16]] = []
        for plane in 0..<(planar ? samples : 1) {
            for top in stride(from: 0, to: height, by: blockHeight) {
                for left in stride(from: 0, to: width, by: blockWidth) {
                    var payload: [UInt16] = []
                    for y in top..<(tiled ? top + blockHeight : min(top + blockHeight, height)) {
                        for x in left..<(left + blockWidth) {
                            for sample in (planar ? plane..<(plane + 1) : 0..<samples) {
                                let inside = x < width && y < height
                                payload.append(inside ? values[(y * width + x) * samples + sample] : padding)
                            }
                        }
                    }
                    payloads.append(payload)
                }
            }
        }

        var out: [UInt8] = []
        func u16(_ v: Int) { let b = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]; out += littleEndian ? b : b.reversed() }
        func u32(_ v: Int) {
            u16(littleEndian ? v & 0xFFFF : v >> 16)
            u16(littleEndian ? v >> 16 : v & 0xFFFF)
        }
        out += littleEndian ? [0x49, 0x49, 0x2A, 0] : [0x4D, 0x4D, 0, 0x2A]
        u32(8)
        let (offsetsTag, countsTag) = tiled ? (324, 325) : (273, 279)
        var entries: [(tag: Int, type: Int, count: Int, value: Int)] = [
            (256, 4, 1, width), (257, 4, 1, height), (258, 3, samples, 0), (259, 3, 1, 1), (262, 3, 1, photometric),
            (277, 3, 1, samples), (284, 3, 1, planar ? 2 : 1),
            (offsetsTag, 4, payloads.count, 0), (countsTag, 4, payloads.count, 0),
        ]
        entries += tiled ? [(322, 4, 1, blockWidth), (323, 4, 1, blockHeight)] : [(278, 4, 1, blockHeight)]
        if let extra { entries.append((338, 3, 1, extra)) }
        entries.sort { $0.tag < $1.tag }
        let ifdSize = 2 + entries.count * 12 + 4
        let bitsOffset = 8 + ifdSize
        let offsetsOffset = bitsOffset + (samples > 2 ? samples * 2 : 0)
        let countsOffset = offsetsOffset + (payloads.count > 1 ? payloads.count * 4 : 0)
        let pixelOffset = countsOffset + (payloads.count > 1 ? payloads.count * 4 : 0)
        var blockOffsets: [Int] = []
        var next = pixelOffset
        for payload in payloads { blockOffsets.append(next); next += payload.count * 2 }

        u16(entries.count)
        for entry in entries {
            u16(entry.tag); u16(entry.type); u32(entry.count)
            switch entry.tag {
            case 258 where samples > 2: u32(bitsOffset)
            case 258: u16(16); u16(samples == 2 ? 16 : 0)
            case offsetsTag: u32(payloads.count > 1 ? offsetsOffset : pixelOffset)
            case countsTag: u32(payloads.count > 1 ? countsOffset : payloads[0].count * 2)
            case _ where entry.type == 3: u16(entry.value); u16(0)
            default: u32(entry.value)
            }
        }
        u32(0)
        if samples > 2 { for _ in 0..<samples { u16(16) } }
        if payloads.count > 1 {
            for offset in blockOffsets { u32(offset) }
            for payload in payloads { u32(payload.count * 2) }
        }
        for payload in payloads { for value in payload { u16(Int(value)) } }
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
    /// (alpha 300 of 65,535) keeps its hue, which dividing 8-bit values could not do. Also
    /// tiled with the alpha in a plane of its own, read before the colour is divided by it.
    @Test(arguments: [(Blocks.strips(rows: .max), false), (Blocks.tiles(width: 16, height: 16), true)])
    func premultipliedAlphaIsUndoneBeforeRounding(blocks: Blocks, planar: Bool) throws {
        let pixels: [[UInt16]] = [[150, 75, 0, 300], [32_768, 16_384, 0, 32_768], [0, 0, 0, 0], [7_000, 0, 0, 65_535]]
        let data = Self.tiff(width: 4, height: 1, samples: 4, photometric: 2, extra: 1, littleEndian: true,
                             values: pixels.flatMap { $0 }, blocks: blocks, planar: planar)
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

    /// An RGBA image whose every sample differs, so a sample put in the wrong plane, pixel
    /// or row shows: 7×5, which no block size below divides.
    static let mixed: (width: Int, height: Int, values: [UInt16]) = {
        let (width, height) = (7, 5)
        let values = (0..<(width * height * 4)).map { UInt16(truncatingIfNeeded: 393 + $0 * 1_531) }
        return (width, height, values)
    }()

    /// Every layout libtiff stores 16-bit samples in (strips or tiles, interleaved or
    /// planar, blocks that overhang the image) gives the same rounded pixels as one strip.
    @Test(arguments: [
        (Blocks.strips(rows: 2), false), (Blocks.strips(rows: 2), true), (Blocks.strips(rows: .max), true),
        (Blocks.tiles(width: 16, height: 16), false), (Blocks.tiles(width: 16, height: 16), true),
        (Blocks.tiles(width: 16, height: 32), true),
    ])
    func everyBlockLayoutIsRounded(blocks: Blocks, planar: Bool) throws {
        let (width, height, values) = Self.mixed
        let data = Self.tiff(width: width, height: height, samples: 4, photometric: 2, extra: 2,
                             littleEndian: false, values: values, blocks: blocks, planar: planar)
        let image = try TIFFCoder().decode(data, options: ImageCoderOptions())
        #expect(image.size == ImageSize(width: width, height: height))
        for y in 0..<height {
            for x in 0..<width {
                let s = (y * width + x) * 4
                let expected = RGBAColor(red: Self.rounded(Int(values[s])), green: Self.rounded(Int(values[s + 1])),
                                         blue: Self.rounded(Int(values[s + 2])), alpha: Self.rounded(Int(values[s + 3])))
                #expect(image.pixels[pixel: x, y] == expected, "pixel \(x),\(y)")
            }
        }
    }

    /// A tile whose data stops short, and a second plane that is missing, are errors.
    @Test func aTruncatedTileOrPlaneIsBadData() throws {
        let (width, height, values) = Self.mixed
        for planar in [false, true] {
            let data = Self.tiff(width: width, height: height, samples: 4, photometric: 2, extra: 2, littleEndian: true,
                                 values: values, blocks: .tiles(width: 16, height: 16), planar: planar)
            #expect(throws: WebImageError.self) { try TIFFCoder().decode(data.prefix(data.count - 300), options: ImageCoderOptions()) }
        }
    }

    /// A tile far larger than its image (legal, and a cheap way to ask for a huge buffer)
    /// is refused before anything that size is allocated: a 1×1 image whose one tile is
    /// 65,536 × 1,024 samples (128 MiB, over the 16 MiB allowed a tile beyond its image).
    @Test func aTileBeyondTheAllocationLimitIsRefused() throws {
        var data = Self.tiff(width: 1, height: 1, samples: 1, photometric: 1, littleEndian: true, values: [1_000],
                             blocks: .tiles(width: 16, height: 16))
        for (tag, value) in [(UInt8(0x42), [UInt8(0x00), 0x00, 0x01, 0x00]), (0x43, [0x00, 0x04, 0x00, 0x00])] {
            // The entry: tag 322/323, type LONG, count 1, then the value to patch.
            let entry = try #require(data.firstRange(of: Data([tag, 0x01, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00])))
            data.replaceSubrange(entry.upperBound..<(entry.upperBound + 4), with: value)
        }
        do {
            _ = try TIFFCoder().decode(data, options: ImageCoderOptions())
            Issue.record("decoded a 128 MiB tile")
        } catch WebImageError.badImageData(let reason) {
            #expect(reason.contains("larger than the limit"), "\(reason)")
        }
    }
}
