import Foundation
import Testing
@testable import WebImage

@Suite("Rotate transformer")
struct RotateTransformerTests {
    let source = TransformTestSupport.numbered(width: 5, height: 3)

    @Test func quarterTurnCounterClockwiseMovesPixelsExactly() throws {
        let out = try RotateTransformer(degrees: 90).transform(pixels: source)
        #expect(out.size == ImageSize(width: 3, height: 5))
        // Counter-clockwise: the top-right corner becomes the top-left one.
        for y in 0..<5 { for x in 0..<3 { #expect(out[pixel: x, y] == source[pixel: 4 - y, x]) } }
    }

    @Test func halfAndThreeQuarterTurnsMovePixelsExactly() throws {
        let half = try RotateTransformer(degrees: 180).transform(pixels: source)
        for y in 0..<3 { for x in 0..<5 { #expect(half[pixel: x, y] == source[pixel: 4 - x, 2 - y]) } }
        let clockwise = try RotateTransformer(degrees: -90).transform(pixels: source)
        let threeQuarters = try RotateTransformer(degrees: 270).transform(pixels: source)
        #expect(clockwise == threeQuarters)
        for y in 0..<5 { for x in 0..<3 { #expect(clockwise[pixel: x, y] == source[pixel: y, 2 - x]) } }
    }

    @Test func radiansAndDegreesAgreeOnQuarterTurns() throws {
        let radians = try RotateTransformer(angle: .pi / 2).transform(pixels: source)
        #expect(radians == (try RotateTransformer(degrees: 90).transform(pixels: source)))
        #expect(try RotateTransformer(angle: 2 * .pi).transform(pixels: source) == source)
        #expect(RotateTransformer(degrees: 450).quarterTurns == 1)
        #expect(RotateTransformer(degrees: 45).quarterTurns == nil)
    }

    @Test func quarterTurnWithoutFitKeepsTheCanvasAndCentres() throws {
        let square = TransformTestSupport.numbered(width: 4, height: 2)
        let out = try RotateTransformer(degrees: 90, fitSize: false).transform(pixels: square)
        #expect(out.size == square.size)
        // The turned 2×4 image sits in columns 1–2; its rows 1–2 show, the rest is clear.
        #expect(out[pixel: 0, 0].alpha == 0 && out[pixel: 3, 1].alpha == 0)
        #expect(out[pixel: 1, 0] == square[pixel: 2, 0])
        #expect(out[pixel: 2, 1] == square[pixel: 1, 1])
    }

    @Test func arbitraryAngleWithFitGrowsTheCanvasAndLeavesCornersTransparent() throws {
        let gray = PixelBuffer(width: 40, height: 20, filling: RGBAColor(red: 90, green: 120, blue: 150))
        let out = try RotateTransformer(degrees: 30).transform(pixels: gray)
        // Pillow's expand rule: ceil(20 + 22.32) − floor(20 − 22.32) = 43 + 3 = 46; and
        // ceil(10 + 18.66) − floor(10 − 18.66) = 29 + 9 = 38.
        #expect(out.size == ImageSize(width: 46, height: 38))
        #expect(out[pixel: 0, 0].alpha == 0 && out[pixel: 45, 37].alpha == 0)
        // The centre is untouched colour; straight alpha keeps it exact up to rounding.
        let centre = out[pixel: 23, 19]
        #expect(centre.alpha == 255 && abs(Int(centre.red) - 90) <= 1 && abs(Int(centre.blue) - 150) <= 1)
        // Anti-aliased edges: some pixels are partly transparent but keep the colour
        // (premultiplied sampling does not darken them towards the black outside).
        let partial = (0..<out.height).flatMap { y in (0..<out.width).map { out[pixel: $0, y] } }
            .filter { $0.alpha > 20 && $0.alpha < 235 }
        #expect(partial.count > 20)
        for pixel in partial { #expect(abs(Int(pixel.red) - 90) <= 3 && abs(Int(pixel.blue) - 150) <= 3) }
    }

    @Test func arbitraryAngleWithoutFitKeepsTheSize() throws {
        let out = try RotateTransformer(degrees: 10, fitSize: false).transform(pixels: source)
        #expect(out.size == source.size)
    }

    @Test func nonFiniteAngleThrows() {
        #expect(throws: WebImageError.self) { try RotateTransformer(angle: .nan).transform(pixels: source) }
        #expect(throws: WebImageError.self) { try RotateTransformer(angle: .infinity).transform(pixels: source) }
    }
}
