import Foundation
import Testing
@testable import WebImage

@Suite struct ResamplerTests {
    // MARK: Invariants

    static let sizeChanges: [(ImageSize, ImageSize)] = [
        (ImageSize(width: 40, height: 30), ImageSize(width: 13, height: 7)),     // exact Lanczos
        (ImageSize(width: 97, height: 61), ImageSize(width: 13, height: 9)),     // box pre-reduction, partial boxes
        (ImageSize(width: 300, height: 4), ImageSize(width: 9, height: 4)),      // one axis only
        (ImageSize(width: 5, height: 3), ImageSize(width: 23, height: 17)),      // upscale
        (ImageSize(width: 1, height: 1), ImageSize(width: 3, height: 2)),        // single pixel
    ]

    @Test(arguments: [
        RGBAColor(red: 10, green: 200, blue: 77),
        RGBAColor(red: 200, green: 100, blue: 50, alpha: 128),
        RGBAColor(red: 255, green: 0, blue: 255, alpha: 1),
        RGBAColor(red: 0, green: 255, blue: 3, alpha: 254),
    ])
    func constantImageStaysConstantInEveryChannel(color: RGBAColor) {
        for filter in [ResamplingFilter.lanczos3, .bicubic] {
            for (from, to) in Self.sizeChanges {
                let result = PixelBuffer(width: from.width, height: from.height, filling: color).resized(to: to, filter: filter)
                #expect(result.size == to)
                #expect(Self.colors(in: result) == [color], "\(from) -> \(to) \(filter)")
            }
        }
    }

    @Test func fullyTransparentImageBecomesTransparentBlack() {
        let clearWhite = RGBAColor(red: 255, green: 255, blue: 255, alpha: 0)
        let result = PixelBuffer(width: 50, height: 40, filling: clearWhite).resized(to: ImageSize(width: 7, height: 9))
        #expect(Self.colors(in: result) == [.clear])
    }

    @Test func sameSizeReturnsAnEqualBuffer() throws {
        let source = try Self.pattern(width: 31, height: 17, alpha: true, seed: 9)
        #expect(source.resized(to: source.size) == source)
        #expect(source.resized(to: source.size, filter: .bicubic) == source)
    }

    @Test(arguments: [
        ImageSize(width: 50, height: 33), ImageSize(width: 9, height: 7), ImageSize(width: 1, height: 1),
        ImageSize(width: 400, height: 2), ImageSize(width: 2, height: 300), ImageSize(width: 100, height: 80),
    ])
    func producesTheRequestedSize(target: ImageSize) throws {
        let source = try Self.pattern(width: 100, height: 80, alpha: true, seed: 5)
        let result = source.resized(to: target)
        #expect(result.size == target)
        #expect(result.bytes.count == target.width * target.height * 4)
    }

    // MARK: Premultiplied alpha

    /// In premultiplied space a transparent pixel contributes nothing, whatever colour
    /// its RGB bytes hold; filtering straight RGBA would darken (or whiten) the red.
    @Test(arguments: [RGBAColor.clear, RGBAColor(red: 255, green: 255, blue: 255, alpha: 0)])
    func transparentNeighbourDoesNotTintOpaqueRed(transparent: RGBAColor) {
        let red = RGBAColor(red: 255, green: 0, blue: 0)
        var source = PixelBuffer(width: 24, height: 6, filling: transparent)
        for y in 0..<6 { for x in 12..<24 { source[pixel: x, y] = red } }
        for target in [ImageSize(width: 1, height: 1), ImageSize(width: 5, height: 3), ImageSize(width: 53, height: 7)] {
            for filter in [ResamplingFilter.lanczos3, .bicubic] {
                let result = source.resized(to: target, filter: filter)
                var sawPartialAlpha = false
                for y in 0..<target.height {
                    for x in 0..<target.width {
                        let p = result[pixel: x, y]
                        if p.alpha == 0 { continue }
                        if p.alpha < 255 { sawPartialAlpha = true }
                        #expect(p.red == 255 && p.green == 0 && p.blue == 0, "\(target) (\(x), \(y)) = \(p)")
                    }
                }
                #expect(sawPartialAlpha, "the edge should be blended in \(target)")
            }
        }
    }

    // MARK: Averages

    @Test(arguments: [
        (ImageSize(width: 64, height: 64), ImageSize(width: 8, height: 8)),
        (ImageSize(width: 90, height: 60), ImageSize(width: 31, height: 23)),
        (ImageSize(width: 300, height: 300), ImageSize(width: 20, height: 20)),   // box pre-reduction
    ])
    func checkerboardAveragesToMidGrey(from: ImageSize, to: ImageSize) {
        var source = PixelBuffer(width: from.width, height: from.height, filling: .black)
        for y in 0..<from.height { for x in 0..<from.width where (x + y) % 2 == 0 { source[pixel: x, y] = .white } }
        for filter in [ResamplingFilter.lanczos3, .bicubic] {
            let result = source.resized(to: to, filter: filter)
            for y in 0..<to.height {
                for x in 0..<to.width {
                    let p = result[pixel: x, y]
                    for channel in [p.red, p.green, p.blue] {
                        #expect(abs(Int(channel) - 128) <= 2, "\(to) \(filter) (\(x), \(y)) = \(p)")
                    }
                    #expect(p.alpha == 255)
                }
            }
        }
    }

    // MARK: Part of a resize

    /// `resized(to:keeping:)` gives the pixels of the whole resize inside the area: upscaled,
    /// exact Lanczos and box pre-reduced, with and without alpha, areas at every edge.
    @Test(arguments: [
        (ImageSize(width: 23, height: 17), ImageSize(width: 61, height: 40)),
        (ImageSize(width: 40, height: 30), ImageSize(width: 29, height: 21)),
        (ImageSize(width: 97, height: 61), ImageSize(width: 13, height: 9)),
    ])
    func partOfAResizeIsThatPartOfTheWholeResize(from: ImageSize, to: ImageSize) throws {
        for alpha in [false, true] {
            let source = try Self.pattern(width: from.width, height: from.height, alpha: alpha, seed: 4)
            let whole = source.resized(to: to)
            let areas = [
                PixelRect(x: 0, y: 0, width: to.width, height: to.height),
                PixelRect(x: 0, y: 0, width: 5, height: 4),
                PixelRect(x: to.width - 6, y: to.height - 3, width: 6, height: 3),
                PixelRect(x: to.width / 3, y: 1, width: to.width / 2, height: to.height - 2),
                PixelRect(x: 2, y: to.height / 2, width: 1, height: 1),
            ]
            for area in areas {
                let part = source.resized(to: to, keeping: area)
                #expect(part.size == area.size)
                let expected = whole.copying(area)
                // The same weights, perhaps summed in another order: within one level.
                let worst = zip(part.bytes, expected.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= 1, "\(from) -> \(to), area \(area), alpha \(alpha): \(worst)")
            }
        }
    }

    /// Only the boxes the kept part's taps read are reduced (a square covered from a
    /// landscape photo keeps its middle): a window of the reduction is that part of the
    /// whole reduction, the boxes cut by the right and bottom edges included. A row may be
    /// opaque inside the window and not outside it, so the sums may be made another way:
    /// equal within float rounding.
    @Test func aWindowOfTheBoxReductionIsThatPartOfTheWhole() throws {
        let source = try Self.pattern(width: 50, height: 37, alpha: true, seed: 9)
        // 50 / 4 and 37 / 3 leave boxes 2 pixels wide and 1 pixel tall at the edges.
        let whole = Resampler.boxReduce(source, factorX: 4, factorY: 3, columns: 0..<13, rows: 0..<13)
        defer { whole.pixels.deallocate() }
        for (columns, rows) in [(5..<13, 2..<13), (0..<4, 0..<1), (12..<13, 12..<13)] {
            let part = Resampler.boxReduce(source, factorX: 4, factorY: 3, columns: columns, rows: rows)
            defer { part.pixels.deallocate() }
            #expect(part.width == columns.count && part.height == rows.count)
            var worst: Float = 0
            for y in rows {
                for x in columns {
                    let difference = part.pixels[(y - rows.lowerBound) * part.width + x - columns.lowerBound] - whole.pixels[y * 13 + x]
                    worst = max(worst, abs(difference.x), abs(difference.y), abs(difference.z), abs(difference.w))
                }
            }
            #expect(worst < 1e-3, "columns \(columns), rows \(rows): \(worst)")
        }
    }

    /// The case the method exists for: a 1 × 100,000 sliver covering 256 pixels square. The
    /// whole resize would be 256 × 25,600,000 pixels (26 GB); the part is 256 × 256.
    @Test func partOfAnEnormousResizeCostsOnlyThePart() throws {
        let sliver = try Self.pattern(width: 1, height: 100_000, alpha: false, seed: 2)
        let scaled = ImageSize(width: 256, height: 25_600_000)
        let area = PixelRect(x: 0, y: (scaled.height - 256) / 2, width: 256, height: 256)
        let part = sliver.resized(to: scaled, keeping: area)
        #expect(part.size == ImageSize(width: 256, height: 256))
        // Around source row 50,000, where the pattern's green ramp is at half (127 or 128);
        // a sliver one pixel wide is the same in every column.
        for x in [0, 128, 255] { #expect((126...129).contains(part[pixel: x, 128].green)) }
    }

    // MARK: Against Pillow

    struct Reference: Decodable {
        let name: String
        let width: Int
        let height: Int
        let alpha: Bool
        let seed: UInt32
        let targetWidth: Int
        let targetHeight: Int
        let filter: String
        let rgba: String
        let rgbaFloat: String?
    }

    struct ReferenceFile: Decodable {
        let cases: [Reference]
    }

    static func references() throws -> [Reference] {
        let url = Corpus.fixtures.appendingPathComponent("references/resampler.json")
        return try JSONDecoder().decode(ReferenceFile.self, from: Data(contentsOf: url)).cases
    }

    /// Mean and largest absolute difference between two byte arrays of equal length.
    static func difference(_ a: [UInt8], _ b: Data) -> (mean: Double, worst: Int) {
        var total = 0, worst = 0
        for (x, y) in zip(a, b) {
            let d = abs(Int(x) - Int(y))
            total += d
            worst = max(worst, d)
        }
        return (Double(total) / Double(max(1, b.count)), worst)
    }

    /// Against Pillow's 8-bit RGBA resize (see make_resample_references.py): a mean within
    /// 1.5 levels, the brief's bound (measured at most 0.8, on noise with alpha, through the
    /// box pre-reduction). Pillow rounds to 8 bits between its passes and keeps premultiplied
    /// colour in 8 bits, so single channels may differ more; where Pillow's float mode gives
    /// an unrounded reference (opaque cases), every channel must be within 1 level of it,
    /// which pins down the filter, the tap placement and the edge handling.
    @Test func matchesPillowLanczosAndBicubic() throws {
        let cases = try Self.references()
        #expect(cases.count == 4)
        for reference in cases {
            let source = try Self.pattern(width: reference.width, height: reference.height, alpha: reference.alpha, seed: reference.seed)
            let filter: ResamplingFilter = reference.filter == "bicubic" ? .bicubic : .lanczos3
            let result = source.resized(to: ImageSize(width: reference.targetWidth, height: reference.targetHeight), filter: filter)
            let expected = try #require(Data(base64Encoded: reference.rgba))
            try #require(expected.count == result.bytes.count, "\(reference.name)")
            let eightBit = Self.difference(result.bytes, expected)
            #expect(eightBit.mean <= 1.5, "\(reference.name): mean difference \(eightBit.mean)")
            if let floatReference = reference.rgbaFloat {
                let unrounded = try #require(Data(base64Encoded: floatReference))
                try #require(unrounded.count == result.bytes.count, "\(reference.name)")
                let float = Self.difference(result.bytes, unrounded)
                #expect(float.worst <= 1, "\(reference.name): largest difference from float \(float.worst)")
            }
        }
    }

    /// The distinct colours of `pixels`: a short, readable value to compare.
    static func colors(in pixels: PixelBuffer) -> Set<RGBAColor> {
        var colors = Set<RGBAColor>()
        for y in 0..<pixels.height { for x in 0..<pixels.width { colors.insert(pixels[pixel: x, y]) } }
        return colors
    }

    /// The same pixels as `pattern` in make_resample_references.py: gradients in red and
    /// green, LCG noise in blue and (with `alpha`) alpha between 64 and 255.
    static func pattern(width: Int, height: Int, alpha: Bool, seed: UInt32) throws -> PixelBuffer {
        var state = seed
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = Int(state >> 24)
                bytes.append(UInt8(x * 255 / max(1, width - 1)))
                bytes.append(UInt8(y * 255 / max(1, height - 1)))
                bytes.append(UInt8(noise))
                bytes.append(alpha ? UInt8(64 + (x * 3 + y * 5 + noise / 2) % 192) : 255)
            }
        }
        return try PixelBuffer(width: width, height: height, bytes: bytes)
    }
}
