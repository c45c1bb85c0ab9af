import Testing
@testable import WebImage

@Suite("Tint transformer")
struct TintTransformerTests {
    /// Left column opaque grey 128, right column half-transparent white, bottom row clear.
    let source: PixelBuffer = {
        var pixels = PixelBuffer(width: 2, height: 2, filling: .clear)
        pixels[pixel: 0, 0] = RGBAColor(red: 128, green: 128, blue: 128)
        pixels[pixel: 1, 0] = RGBAColor(red: 255, green: 255, blue: 255, alpha: 128)
        return pixels
    }()
    let red = RGBAColor(red: 255, green: 0, blue: 0)

    @Test func sourceInPaintsTheColourInTheImageShape() throws {
        let out = try TintTransformer(color: red).transform(pixels: source)
        #expect(out[pixel: 0, 0] == red)
        #expect(out[pixel: 1, 0] == RGBAColor(red: 255, green: 0, blue: 0, alpha: 128))
        #expect(out[pixel: 0, 1].alpha == 0)
    }

    @Test func sourceAtopKeepsAlphaAndLetsATranslucentColourShowTheImage() throws {
        let halfRed = RGBAColor(red: 255, green: 0, blue: 0, alpha: 128)
        let out = try TintTransformer(color: halfRed, blendMode: .sourceAtop).transform(pixels: source)
        // Opaque grey: 0.502·255 + 0.498·128 ≈ 192 red, 0.498·128 ≈ 64 green and blue.
        let grey = out[pixel: 0, 0]
        #expect(grey.alpha == 255)
        #expect(abs(Int(grey.red) - 192) <= 1 && abs(Int(grey.green) - 64) <= 1 && grey.green == grey.blue)
        // Alpha is the image's everywhere.
        #expect(out[pixel: 1, 0].alpha == 128)
        #expect(out[pixel: 0, 1].alpha == 0 && out[pixel: 1, 1].alpha == 0)
    }

    @Test func multiplyScreenAndOverlayOnOpaqueGrey() throws {
        let colour = RGBAColor(red: 255, green: 128, blue: 0)
        let multiply = try TintTransformer(color: colour, blendMode: .multiply).transform(pixels: source)[pixel: 0, 0]
        #expect(multiply == RGBAColor(red: 128, green: 64, blue: 0))
        let screen = try TintTransformer(color: colour, blendMode: .screen).transform(pixels: source)[pixel: 0, 0]
        #expect(screen == RGBAColor(red: 255, green: 192, blue: 128))
        // Backdrop 128 is just above half: screen branch, 1 − 2(1 − s)(1 − 0.502).
        let overlay = try TintTransformer(color: colour, blendMode: .overlay).transform(pixels: source)[pixel: 0, 0]
        #expect(overlay == RGBAColor(red: 255, green: 128, blue: 1))
    }

    @Test func separableModesPaintTheColourOverTransparentPixels() throws {
        let out = try TintTransformer(color: red, blendMode: .normal).transform(pixels: source)
        #expect(out[pixel: 0, 1] == red)
        #expect(out[pixel: 0, 0] == red)
    }

    @Test func transparentColourChangesNothing() throws {
        #expect(try TintTransformer(color: .clear, blendMode: .normal).transform(pixels: source) == source)
    }
}
