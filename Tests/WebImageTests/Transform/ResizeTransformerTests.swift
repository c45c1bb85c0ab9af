import Testing
@testable import WebImage

@Suite("Resize transformer")
struct ResizeTransformerTests {
    /// 40×20, left half red and right half blue, opaque.
    let wide: PixelBuffer = {
        var pixels = PixelBuffer(width: 40, height: 20, filling: RGBAColor(red: 255, green: 0, blue: 0))
        for y in 0..<20 { for x in 20..<40 { pixels[pixel: x, y] = RGBAColor(red: 0, green: 0, blue: 255) } }
        return pixels
    }()

    @Test func fillStretchesToTheExactSize() throws {
        let out = try ResizeTransformer(size: ImageSize(width: 10, height: 30), mode: .fill).transform(pixels: wide)
        #expect(out.size == ImageSize(width: 10, height: 30))
        #expect(!out.containsTransparency)
        #expect(out[pixel: 0, 15] == RGBAColor(red: 255, green: 0, blue: 0))
        #expect(out[pixel: 9, 15] == RGBAColor(red: 0, green: 0, blue: 255))
    }

    @Test func aspectFitCentresTheImageOnATransparentCanvas() throws {
        // 40×20 into 20×20: scaled to 20×10, padded 5 rows above and below.
        let out = try ResizeTransformer(size: ImageSize(width: 20, height: 20), mode: .aspectFit).transform(pixels: wide)
        #expect(out.size == ImageSize(width: 20, height: 20))
        for x in 0..<20 {
            for y in 0..<5 { #expect(out[pixel: x, y].alpha == 0) }
            for y in 15..<20 { #expect(out[pixel: x, y].alpha == 0) }
            for y in 5..<15 { #expect(out[pixel: x, y].alpha == 255) }
        }
        #expect(out[pixel: 2, 10] == RGBAColor(red: 255, green: 0, blue: 0))
        #expect(out[pixel: 17, 10] == RGBAColor(red: 0, green: 0, blue: 255))
    }

    @Test func aspectFillCoversTheSizeAndKeepsTheCentre() throws {
        // 40×20 into 10×10: scaled to 20×10, the middle 10 columns kept (5 red, 5 blue).
        let out = try ResizeTransformer(size: ImageSize(width: 10, height: 10), mode: .aspectFill).transform(pixels: wide)
        #expect(out.size == ImageSize(width: 10, height: 10))
        #expect(!out.containsTransparency)
        #expect(out[pixel: 1, 5] == RGBAColor(red: 255, green: 0, blue: 0))
        #expect(out[pixel: 8, 5] == RGBAColor(red: 0, green: 0, blue: 255))
    }

    /// A hostile sliver (1 × 100,000, within every pixel limit) filling a square: only the
    /// kept part is resampled, not the 256 × 25,600,000 scaled image (26 GB) it is cut from.
    @Test func aspectFillOfASliverResamplesOnlyWhatItKeeps() throws {
        let sliver = PixelBuffer(width: 1, height: 100_000, filling: RGBAColor(red: 0, green: 128, blue: 255))
        let out = try ResizeTransformer(size: ImageSize(width: 256, height: 256), mode: .aspectFill).transform(pixels: sliver)
        #expect(out.size == ImageSize(width: 256, height: 256))
        #expect(out[pixel: 200, 100] == RGBAColor(red: 0, green: 128, blue: 255))
    }

    @Test func scaledSizesFollowSDWebImageGeometry() {
        let source = ImageSize(width: 400, height: 300)
        let target = ImageSize(width: 200, height: 200)
        #expect(ResizeTransformer.scaledSize(of: source, to: target, covering: false) == ImageSize(width: 200, height: 150))
        #expect(ResizeTransformer.scaledSize(of: source, to: target, covering: true) == ImageSize(width: 267, height: 200))
        let tall = ImageSize(width: 100, height: 400)
        #expect(ResizeTransformer.scaledSize(of: tall, to: target, covering: false) == ImageSize(width: 50, height: 200))
        #expect(ResizeTransformer.scaledSize(of: tall, to: target, covering: true) == ImageSize(width: 200, height: 800))
        // A sliver never scales to nothing.
        #expect(ResizeTransformer.scaledSize(of: ImageSize(width: 1000, height: 1), to: target, covering: false) == ImageSize(width: 200, height: 1))
    }

    @Test func sizeWithoutPixelsThrows() {
        #expect(throws: WebImageError.self) {
            try ResizeTransformer(size: ImageSize(width: 0, height: 10)).transform(pixels: wide)
        }
    }
}
