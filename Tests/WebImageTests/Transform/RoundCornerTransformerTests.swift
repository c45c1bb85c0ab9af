import Testing
@testable import WebImage

@Suite("Round corner transformer")
struct RoundCornerTransformerTests {
    let green = RGBAColor(red: 0, green: 200, blue: 0)
    var square: PixelBuffer { PixelBuffer(width: 20, height: 20, filling: green) }

    @Test func cornersBecomeTransparentAndTheCentreIsUntouched() throws {
        let out = try RoundCornerTransformer(radius: 8).transform(pixels: square)
        #expect(out.size == square.size)
        for (x, y) in [(0, 0), (19, 0), (0, 19), (19, 19), (1, 1)] { #expect(out[pixel: x, y].alpha == 0) }
        for y in 8..<12 { for x in 0..<20 { #expect(out[pixel: x, y] == green) } }
        for y in 0..<20 { for x in 8..<12 { #expect(out[pixel: x, y] == green) } }
        // Straight edges between the corners stay whole pixels.
        #expect(out[pixel: 10, 0] == green && out[pixel: 0, 10] == green)
    }

    @Test func roundedEdgeIsAntiAliased() throws {
        let out = try RoundCornerTransformer(radius: 8).transform(pixels: square)
        // Along the top-left arc some pixels are partly covered, and they keep the colour.
        let arc = (0..<8).flatMap { y in (0..<8).map { out[pixel: $0, y] } }.filter { $0.alpha > 0 && $0.alpha < 255 }
        #expect(arc.count >= 6)
        for pixel in arc { #expect(pixel.red == 0 && pixel.green == 200 && pixel.blue == 0) }
        // Coverage falls off outwards along the diagonal.
        let diagonal = (0..<8).map { Int(out[pixel: $0, $0].alpha) }
        #expect(diagonal == diagonal.sorted())
    }

    @Test func onlyTheChosenCornersAreRounded() throws {
        let out = try RoundCornerTransformer(radius: 8, corners: [.topLeft, .bottomRight]).transform(pixels: square)
        #expect(out[pixel: 0, 0].alpha == 0 && out[pixel: 19, 19].alpha == 0)
        #expect(out[pixel: 19, 0] == green && out[pixel: 0, 19] == green)
    }

    @Test func borderTakesItsColourAroundTheEdge() throws {
        let white = RGBAColor.white
        let out = try RoundCornerTransformer(radius: 6, borderWidth: 2, borderColor: white).transform(pixels: square)
        // The two outer rows and columns along the straight edges are border.
        for i in 7..<13 {
            #expect(out[pixel: i, 0] == white && out[pixel: i, 1] == white)
            #expect(out[pixel: 0, i] == white && out[pixel: 19, i] == white)
            #expect(out[pixel: i, 2] == green)
        }
        #expect(out[pixel: 10, 10] == green)
        #expect(out[pixel: 0, 0].alpha == 0)
    }

    @Test func radiusIsClampedToHalfTheShorterSide() throws {
        let huge = try RoundCornerTransformer(radius: 1000).transform(pixels: square)
        let circle = try RoundCornerTransformer(radius: 10).transform(pixels: square)
        #expect(huge == circle)
        #expect(circle[pixel: 10, 10] == green && circle[pixel: 10, 0].alpha > 0)
    }

    @Test func transparentInputKeepsItsAlphaInside() throws {
        let faint = PixelBuffer(width: 10, height: 10, filling: RGBAColor(red: 10, green: 20, blue: 30, alpha: 100))
        let out = try RoundCornerTransformer(radius: 3).transform(pixels: faint)
        #expect(out[pixel: 5, 5] == RGBAColor(red: 10, green: 20, blue: 30, alpha: 100))
        #expect(out[pixel: 0, 0].alpha == 0)
    }
}
