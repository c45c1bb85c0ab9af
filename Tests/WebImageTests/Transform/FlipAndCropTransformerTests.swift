import Testing
@testable import WebImage

@Suite("Flip and crop transformers")
struct FlipAndCropTransformerTests {
    let source = TransformTestSupport.numbered(width: 5, height: 3)

    @Test func horizontalFlipMirrorsEachRowExactly() throws {
        let out = try FlipTransformer(horizontal: true).transform(pixels: source)
        #expect(out.size == source.size)
        for y in 0..<3 { for x in 0..<5 { #expect(out[pixel: x, y] == source[pixel: 4 - x, y]) } }
    }

    @Test func verticalFlipMirrorsEachColumnExactly() throws {
        let out = try FlipTransformer(vertical: true).transform(pixels: source)
        for y in 0..<3 { for x in 0..<5 { #expect(out[pixel: x, y] == source[pixel: x, 2 - y]) } }
    }

    @Test func bothFlipsAreAHalfTurn() throws {
        let out = try FlipTransformer(horizontal: true, vertical: true).transform(pixels: source)
        for y in 0..<3 { for x in 0..<5 { #expect(out[pixel: x, y] == source[pixel: 4 - x, 2 - y]) } }
    }

    @Test func noFlipLeavesPixelsAsTheyAre() throws {
        #expect(try FlipTransformer().transform(pixels: source) == source)
    }

    @Test func cropCopiesTheRectangleExactly() throws {
        let out = try CropTransformer(rect: PixelRect(x: 1, y: 1, width: 3, height: 2)).transform(pixels: source)
        #expect(out.size == ImageSize(width: 3, height: 2))
        for y in 0..<2 { for x in 0..<3 { #expect(out[pixel: x, y] == source[pixel: x + 1, y + 1]) } }
    }

    @Test func cropIsClippedToTheImage() throws {
        let out = try CropTransformer(rect: PixelRect(x: -2, y: 2, width: 4, height: 10)).transform(pixels: source)
        #expect(out.size == ImageSize(width: 2, height: 1))
        #expect(out[pixel: 0, 0] == source[pixel: 0, 2])
        #expect(out[pixel: 1, 0] == source[pixel: 1, 2])
    }

    @Test(arguments: [
        PixelRect(x: 5, y: 0, width: 2, height: 2), PixelRect(x: -3, y: 0, width: 3, height: 3),
        PixelRect(x: 0, y: 0, width: 0, height: 3), PixelRect(x: Int.max - 1, y: 0, width: Int.max, height: 1),
    ])
    func cropOutsideTheImageThrowsTransformFailed(rect: PixelRect) {
        #expect(throws: WebImageError.self) { try CropTransformer(rect: rect).transform(pixels: source) }
        do {
            _ = try CropTransformer(rect: rect).transform(pixels: source)
        } catch let error as WebImageError {
            guard case .transformFailed = error else { Issue.record("unexpected \(error)"); return }
        } catch { Issue.record("unexpected \(error)") }
    }
}
