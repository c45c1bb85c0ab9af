import Testing
@testable import WebImage

@Suite("Transformer keys, pipelines and animated images")
struct PipelineAndKeyTests {
    @Test func keysUseSDWebImageFormats() {
        #expect(ResizeTransformer(size: ImageSize(width: 256, height: 128), mode: .aspectFill).key
            == "SDImageResizingTransformer({256.000000,128.000000},2)")
        #expect(CropTransformer(rect: PixelRect(x: 1, y: 2, width: 30, height: 40)).key
            == "SDImageCroppingTransformer({1.000000,2.000000,30.000000,40.000000})")
        #expect(FlipTransformer(horizontal: true).key == "SDImageFlippingTransformer(1,0)")
        #expect(RotateTransformer(angle: 0.5, fitSize: false).key == "SDImageRotationTransformer(0.500000,0)")
        #expect(RoundCornerTransformer(radius: 12, corners: [.topLeft, .bottomRight], borderWidth: 2,
                                       borderColor: RGBAColor(red: 255, green: 0, blue: 16, alpha: 128)).key
            == "SDImageRoundCornerTransformer(12.000000,9,2.000000,#80ff0010)")
        #expect(RoundCornerTransformer(radius: 4).key == "SDImageRoundCornerTransformer(4.000000,15,0.000000,(null))")
        #expect(TintTransformer(color: RGBAColor(red: 0, green: 0, blue: 255)).key == "SDImageTintTransformer(#ff0000ff,18)")
        #expect(TintTransformer(color: .black, blendMode: .sourceAtop).key == "SDImageTintTransformer(#ff000000,20)")
        #expect(BlurTransformer(radius: 4).key == "SDImageBlurTransformer(4.000000)")
    }

    @Test func keysAreDistinctForDistinctParameters() {
        let keys: [String] = [
            ResizeTransformer(size: ImageSize(width: 10, height: 20)).key,
            ResizeTransformer(size: ImageSize(width: 20, height: 10)).key,
            ResizeTransformer(size: ImageSize(width: 10, height: 20), mode: .aspectFit).key,
            RotateTransformer(angle: 0.1234561).key, RotateTransformer(angle: 0.1234562).key,
            RotateTransformer(degrees: 90).key, RotateTransformer(degrees: 90, fitSize: false).key,
            BlurTransformer(radius: 1e-7).key, BlurTransformer(radius: 2e-7).key,
            FlipTransformer(vertical: true).key, FlipTransformer(horizontal: true, vertical: true).key,
            RoundCornerTransformer(radius: 4, borderColor: .clear).key, RoundCornerTransformer(radius: 4).key,
            TintTransformer(color: .white).key, TintTransformer(color: .white, blendMode: .multiply).key,
        ]
        #expect(Set(keys).count == keys.count)
    }

    @Test func keysAreStable() {
        #expect(RotateTransformer(degrees: 90).key == "SDImageRotationTransformer(1.5707963267948966,1)")
        #expect(RotateTransformer(degrees: 90).key == RotateTransformer(angle: .pi / 2).key)
    }

    @Test func pipelineAppliesInOrderAndJoinsKeys() throws {
        let source = Image(pixels: TransformTestSupport.numbered(width: 6, height: 4), hasAlpha: false)
        let crop = CropTransformer(rect: PixelRect(x: 0, y: 0, width: 2, height: 4))
        let rotate = RotateTransformer(degrees: 90)
        let cropThenRotate = try PipelineTransformer([crop, rotate]).transform(source)
        let rotateThenCrop = try PipelineTransformer([rotate, crop]).transform(source)
        #expect(cropThenRotate.size == ImageSize(width: 4, height: 2))
        #expect(rotateThenCrop.size == ImageSize(width: 2, height: 4))
        #expect(cropThenRotate.pixels == (try rotate.transform(pixels: crop.transform(pixels: source.pixels))))
        #expect(PipelineTransformer([crop, rotate]).key == crop.key + "-" + rotate.key)
        #expect(PipelineTransformer([crop, rotate]).key != PipelineTransformer([rotate, crop]).key)
        #expect(cropThenRotate.isTransformed)
    }

    @Test func emptyPipelineMarksItsInputTransformed() throws {
        let source = Image(pixels: TransformTestSupport.numbered(width: 3, height: 3))
        let out = try PipelineTransformer([]).transform(source)
        #expect(PipelineTransformer([]).key == "")
        #expect(out.isTransformed && out.pixels == source.pixels)
    }

    @Test func outputIsMarkedTransformedAndKeepsItsMetadata() throws {
        let source = Image(
            frames: [ImageFrame(pixels: TransformTestSupport.numbered(width: 8, height: 8))],
            format: .jpeg, scale: 2, orientation: .right, hasAlpha: false, isThumbnail: true
        )
        let out = try BlurTransformer(radius: 1).transform(source)
        #expect(out.isTransformed && out.format == .jpeg && out.scale == 2 && out.orientation == .right && out.isThumbnail)
        #expect(!out.hasAlpha)
        // Transparency a transformer adds is declared.
        #expect(try RoundCornerTransformer(radius: 3).transform(source).hasAlpha)
    }

    @Test func posterFrameModeTransformsTheFirstFrameIntoAStill() throws {
        let animation = TransformTestSupport.animation()
        let crop = CropTransformer(rect: PixelRect(x: 1, y: 1, width: 2, height: 2))
        let still = try crop.transform(animation, animated: .posterFrame)
        #expect(still.frameCount == 1 && !still.isAnimated && still.isTransformed && still.loopCount == 1)
        #expect(still.pixels == PixelBuffer(width: 2, height: 2, filling: animation.frames[0].pixels[pixel: 0, 0]))
        // Without the mode, a built-in transformer transforms whatever frames it is given.
        #expect(try crop.transform(animation).frameCount == 3)
    }

    @Test func animatedImageTransformsEveryFrameWhenAsked() throws {
        let animation = TransformTestSupport.animation()
        let resize = ResizeTransformer(size: ImageSize(width: 3, height: 2))
        let all = try resize.transform(animation, animated: .everyFrame)
        #expect(all.frameCount == 3 && all.loopCount == 2 && all.isTransformed)
        #expect(all.frames.map(\.duration) == animation.frames.map(\.duration))
        for (out, original) in zip(all.frames, animation.frames) {
            #expect(out.pixels.size == ImageSize(width: 3, height: 2))
            #expect(out.pixels[pixel: 1, 1] == original.pixels[pixel: 0, 0])
        }
    }

    @Test func animatedImageCanBeLeftUntouched() throws {
        let animation = TransformTestSupport.animation()
        let out = try BlurTransformer(radius: 3).transform(animation, animated: .untouched)
        #expect(out === animation && !out.isTransformed)
        let still = Image(pixels: TransformTestSupport.numbered(width: 4, height: 4))
        #expect(try BlurTransformer(radius: 3).transform(still, animated: .untouched).isTransformed)
    }
}
