import Testing
@testable import WebImage

@Suite("Transform spec parser")
struct TransformSpecTests {
    @Test func parsesEveryStepOfTheDocumentedExample() throws {
        let spec = try TransformSpec("resize=256x256,fill;crop=0,0,100,100;round=12;blur=4;rotate=90;flip=h;tint=#ff000080")
        let expected: [any ImageTransformer] = [
            ResizeTransformer(size: ImageSize(width: 256, height: 256), mode: .fill),
            CropTransformer(rect: PixelRect(x: 0, y: 0, width: 100, height: 100)),
            RoundCornerTransformer(radius: 12),
            BlurTransformer(radius: 4),
            RotateTransformer(degrees: 90, fitSize: true),
            FlipTransformer(horizontal: true),
            TintTransformer(color: RGBAColor(red: 255, green: 0, blue: 0, alpha: 128)),
        ]
        #expect(spec.transformers.map(\.key) == expected.map(\.key))
        #expect(spec.transformer.key == PipelineTransformer(expected).key)
    }

    @Test func readsOptionsModesAndSpaces() throws {
        let spec = try TransformSpec(
            " resize = 64x32 , aspectFit ; ROUND=8,corners=tl+br,border=2,color=#00ff00 ; rotate=30,keep ; tint=336699,multiply ; flip=VH "
        )
        let keys = spec.transformers.map(\.key)
        #expect(keys == [
            ResizeTransformer(size: ImageSize(width: 64, height: 32), mode: .aspectFit).key,
            RoundCornerTransformer(radius: 8, corners: [.topLeft, .bottomRight], borderWidth: 2,
                                   borderColor: RGBAColor(red: 0, green: 255, blue: 0)).key,
            RotateTransformer(degrees: 30, fitSize: false).key,
            TintTransformer(color: RGBAColor(red: 0x33, green: 0x66, blue: 0x99), blendMode: .multiply).key,
            FlipTransformer(horizontal: true, vertical: true).key,
        ])
        #expect(try TransformSpec("resize=10x10,cover").transformers[0].key
            == ResizeTransformer(size: ImageSize(width: 10, height: 10), mode: .aspectFill).key)
    }

    @Test(arguments: [
        "", ";", "resize", "resize=0x10", "resize=10", "resize=70000x10", "resize=10x10,stretch",
        "crop=0,0,10", "crop=0,0,-1,5", "crop=a,0,1,1", "flip=x", "rotate=nan", "rotate=inf", "rotate=10,spin",
        "round=-1", "round=4,corners=tl+middle", "round=4,border", "round=4,shadow=2", "tint=#ff00", "tint=red",
        "tint=#ff0000,dissolve", "blur=-2", "blur=", "blur=1,2", "sharpen=3", "blur=2;;flip=h",
    ])
    func rejectsMalformedSpecsWithAReason(text: String) {
        do {
            _ = try TransformSpec(text)
            Issue.record("accepted '\(text)'")
        } catch let error as TransformSpec.ParseError {
            #expect(!error.description.isEmpty && !error.description.contains("\n"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func parsedSpecTransformsAnImage() throws {
        let spec = try TransformSpec("resize=20x10,aspectFill;rotate=90;round=3")
        let image = Image(pixels: TransformTestSupport.numbered(width: 40, height: 40), hasAlpha: false)
        let out = try spec.transformer.transform(image)
        #expect(out.size == ImageSize(width: 10, height: 20))
        #expect(out.isTransformed && out.hasAlpha)
    }

    /// A resize to the largest size a spec accepts (65535 square, 17 GB) fails with
    /// `transformFailed` before anything is allocated: results are bounded at 200 megapixels.
    @Test func aResizePastTheResultLimitFails() throws {
        let spec = try TransformSpec("resize=65535x65535")
        let image = Image(pixels: TransformTestSupport.numbered(width: 10, height: 10), hasAlpha: false)
        #expect(throws: WebImageError.self) { try spec.transformer.transform(image) }
    }

    /// Each 45° turn may double the pixels: twenty in a row on 100 × 100 would need 44 GB.
    /// The canvas is checked before it is made (here against a limit of 40,000 pixels, where
    /// the second turn is refused; the transformer checks against 200 megapixels).
    @Test func aTurnPastTheResultLimitFails() throws {
        let turn = RotateTransformer(angle: .pi / 4)
        let first = try turn.canvas(for: ImageSize(width: 100, height: 100), limit: 40_000)
        #expect(first == ImageSize(width: 142, height: 142))
        #expect(throws: WebImageError.self) { try turn.canvas(for: first, limit: 40_000) }
        #expect(throws: WebImageError.self) { try turn.canvas(for: ImageSize(width: 20_000, height: 20_000), limit: TransformLimit.pixelCount) }
    }
}
