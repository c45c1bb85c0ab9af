import Foundation
import Testing
@testable import WebImage

/// The palette builder, the nearest-colour lookup and the dithering remap on their own.
@Suite struct ColorQuantizerTests {
    @Test func imageWithFewColoursGetsThemExactly() throws {
        let pixels = GIFEncoderFixtures.pattern(width: 40, height: 30, colors: 200)
        let palette = ColorQuantizer.palette(for: [pixels], maxColors: 256)
        #expect(palette.isExact)
        #expect(palette.colorCount == 200)
        #expect(palette.transparentIndex == nil)
        var lookup = ColorQuantizer.Lookup(palette)
        let indices = ColorQuantizer.remap(pixels, palette: palette, lookup: &lookup, dither: true)
        #expect(GIFEncoderFixtures.expand(indices, palette: palette, size: pixels.size) == pixels)
    }

    @Test func alphaBelow128IsTransparentAndReservesTheEntryAfterTheColours() throws {
        var pixels = PixelBuffer(width: 4, height: 1, filling: RGBAColor(red: 10, green: 20, blue: 30))
        pixels[pixel: 1, 0] = RGBAColor(red: 200, green: 0, blue: 0, alpha: 127)
        pixels[pixel: 2, 0] = RGBAColor(red: 0, green: 200, blue: 0, alpha: 128)
        let palette = ColorQuantizer.palette(for: [pixels], maxColors: 256)
        #expect(palette.colorCount == 2)
        #expect(palette.transparentIndex == 2)
        var lookup = ColorQuantizer.Lookup(palette)
        let indices = ColorQuantizer.remap(pixels, palette: palette, lookup: &lookup, dither: false)
        #expect(indices[1] == 2)
        #expect(indices[0] != 2 && indices[2] != 2 && indices[0] != indices[2])
    }

    @Test func transparencyCostsAnExactPaletteItsLastSlot() throws {
        var pixels = GIFEncoderFixtures.pattern(width: 32, height: 8, colors: 256)
        let opaque = ColorQuantizer.palette(for: [pixels], maxColors: 256)
        #expect(opaque.isExact && opaque.colorCount == 256)
        // An animation prefers the transparent entry, but not at the price of exactness.
        #expect(ColorQuantizer.palette(for: [pixels], maxColors: 256, preferTransparentEntry: true) == opaque)
        pixels[pixel: 0, 0] = .clear
        let withHole = ColorQuantizer.palette(for: [pixels], maxColors: 256)
        // 255 colours left plus a transparent pixel: they still fit beside its entry.
        #expect(withHole.isExact && withHole.colorCount == 255 && withHole.transparentIndex == 255)
        // Each colour twice: a transparent pixel leaves all 256, one too many to be exact.
        var doubled = GIFEncoderFixtures.pattern(width: 64, height: 8, colors: 256)
        doubled[pixel: 0, 0] = .clear
        let tooMany = ColorQuantizer.palette(for: [doubled], maxColors: 256)
        #expect(!tooMany.isExact)
        #expect(tooMany.colorCount <= 255 && tooMany.transparentIndex == tooMany.colorCount)
    }

    @Test func allTransparentImageStillHasOneColour() throws {
        let pixels = PixelBuffer(width: 3, height: 3, filling: .clear)
        let palette = ColorQuantizer.palette(for: [pixels], maxColors: 256)
        #expect(palette.transparentIndex == palette.colorCount)
        var lookup = ColorQuantizer.Lookup(palette)
        #expect(ColorQuantizer.remap(pixels, palette: palette, lookup: &lookup, dither: true)
            == [UInt8](repeating: UInt8(palette.colorCount), count: 9))
    }

    @Test func photoPaletteIsDeterministicAndRespectsTheLimit() throws {
        let photo = try GIFEncoderFixtures.photo()
        for limit in [2, 16, 255, 256] {
            let palette = ColorQuantizer.palette(for: [photo], maxColors: limit)
            #expect(!palette.isExact)
            #expect(palette.entryCount <= limit)
            #expect(palette.entryCount >= limit * 3 / 4, "a photo fills (nearly) every slot: \(palette.entryCount) of \(limit)")
            #expect(ColorQuantizer.palette(for: [photo], maxColors: limit) == palette)
        }
    }

    /// Mean absolute difference per channel on a 400-pixel frame of TestImageLarge.jpg,
    /// without dithering: the palette must be close (≤ 6 levels) and clearly better than
    /// the naive uniform 3-3-2 palette (8 reds, 8 greens, 4 blues), at most 40% of its error.
    @Test func photoErrorIsSmallAndFarBelowAUniformPalette() throws {
        let photo = try GIFEncoderFixtures.photo()
        let palette = ColorQuantizer.palette(for: [photo], maxColors: 256)
        var lookup = ColorQuantizer.Lookup(palette)
        let indices = ColorQuantizer.remap(photo, palette: palette, lookup: &lookup, dither: false)
        let ours = GIFEncoderFixtures.meanAbsoluteDifference(
            GIFEncoderFixtures.expand(indices, palette: palette, size: photo.size), photo)
        let uniform = GIFEncoderFixtures.meanAbsoluteDifference(GIFEncoderFixtures.uniform332(photo), photo)
        #expect(ours <= 6, "mean abs diff \(ours)")
        #expect(ours <= uniform * 0.4, "ours \(ours), uniform 3-3-2 \(uniform)")
    }

    @Test func ditheringKeepsTheAverageColourOfAFlatArea() throws {
        // A flat colour between two palette entries: nearest-colour gives one entry
        // everywhere, dithering mixes both so that the average comes back.
        let gray = PixelBuffer(width: 64, height: 64, filling: RGBAColor(red: 100, green: 100, blue: 100))
        let palette = ColorQuantizer.Palette(rgb: [90, 90, 90, 120, 120, 120], transparentIndex: nil, isExact: false)
        var lookup = ColorQuantizer.Lookup(palette)
        let plain = ColorQuantizer.remap(gray, palette: palette, lookup: &lookup, dither: false)
        let dithered = ColorQuantizer.remap(gray, palette: palette, lookup: &lookup, dither: true)
        #expect(Set(plain) == [0])
        let average = dithered.reduce(0.0) { $0 + ($1 == 0 ? 90 : 120) } / Double(dithered.count)
        #expect(abs(average - 100) < 1, "average \(average)")
    }

    @Test func lookupAgreesWithBruteForce() throws {
        var state: UInt64 = 12345
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 56)
        }
        let rgb = (0..<150 * 3).map { _ in UInt8(next()) }
        var search = ColorQuantizer.Lookup(ColorQuantizer.Palette(rgb: rgb, transparentIndex: nil, isExact: false))
        for _ in 0..<2000 {
            let (r, g, b) = (next(), next(), next())
            let distances = (0..<150).map { i in
                let dr = Int(rgb[i * 3]) - r, dg = Int(rgb[i * 3 + 1]) - g, db = Int(rgb[i * 3 + 2]) - b
                return dr * dr + dg * dg + db * db
            }
            let best = distances.indices.min { (distances[$0], $0) < (distances[$1], $1) }
            #expect(Int(search.index(r, g, b)) == best)
        }
    }
}
