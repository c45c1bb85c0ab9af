import Foundation
import Testing
@testable import WebImage

@Suite struct DecodeGeometryTests {
    static func size(_ width: Int, _ height: Int) -> ImageSize { ImageSize(width: width, height: height) }

    // MARK: Thumbnails

    @Test func thumbnailFitsTheBoxKeepingTheAspectRatio() {
        #expect(DecodeGeometry.thumbnailSize(for: Self.size(5250, 3450), in: Self.size(400, 300), preserveAspectRatio: true) == Self.size(400, 263))
        #expect(DecodeGeometry.thumbnailSize(for: Self.size(100, 200), in: Self.size(150, 150), preserveAspectRatio: true) == Self.size(75, 150))
        #expect(DecodeGeometry.thumbnailSize(for: Self.size(3000, 10), in: Self.size(100, 100), preserveAspectRatio: true) == Self.size(100, 1))
    }

    @Test func thumbnailWithoutAspectRatioClampsEachSide() {
        #expect(DecodeGeometry.thumbnailSize(for: Self.size(100, 200), in: Self.size(150, 150), preserveAspectRatio: false) == Self.size(100, 150))
        #expect(DecodeGeometry.thumbnailSize(for: Self.size(5250, 3450), in: Self.size(400, 300), preserveAspectRatio: false) == Self.size(400, 300))
    }

    @Test(arguments: [true, false])
    func thumbnailNeverScalesUp(preserveAspectRatio: Bool) {
        #expect(DecodeGeometry.thumbnailSize(for: Self.size(50, 40), in: Self.size(400, 300), preserveAspectRatio: preserveAspectRatio) == Self.size(50, 40))
        #expect(DecodeGeometry.thumbnailSize(for: Self.size(400, 300), in: Self.size(400, 300), preserveAspectRatio: preserveAspectRatio) == Self.size(400, 300))
    }

    @Test func coveringThumbnailScalesByTheLargerRatioSoACropToTheBoxCanFollow() {
        // 5250x3450 into 400x300: 400/5250 < 300/3450, so the height decides: 456.5 rounds to 457x300.
        #expect(DecodeGeometry.thumbnailSize(for: Self.size(5250, 3450), in: Self.size(400, 300), preserveAspectRatio: true, coversBox: true) == Self.size(457, 300))
        #expect(DecodeGeometry.thumbnailSize(for: Self.size(100, 200), in: Self.size(50, 50), preserveAspectRatio: true, coversBox: true) == Self.size(50, 100))
        // A side that would round below the box is held at it.
        #expect(DecodeGeometry.thumbnailSize(for: Self.size(3000, 10), in: Self.size(100, 5), preserveAspectRatio: true, coversBox: true) == Self.size(1500, 5))
        // Never larger than the source, even when covering would need it.
        #expect(DecodeGeometry.thumbnailSize(for: Self.size(300, 100), in: Self.size(200, 200), preserveAspectRatio: true, coversBox: true) == Self.size(300, 100))
    }

    @Test func theCoveringOptionReachesEveryDecoderThroughTargetSize() throws {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = Self.size(400, 300)
        options.thumbnailCoversBox = true
        #expect(DecodeGeometry.targetSize(for: Self.size(5250, 3450), options: options) == Self.size(457, 300))
        // And a real JPEG decode (DCT scaling, then the resample) lands on the covering size.
        let large = try CodersManager.shared.decode(Corpus.data("TestImageLarge.jpg"))
        let jpeg = try CodersManager.shared.decode(Corpus.data("TestImageLarge.jpg"), options: options)
        let expected = DecodeGeometry.thumbnailSize(for: large.size, in: Self.size(400, 300), preserveAspectRatio: true, coversBox: true)
        #expect(jpeg.size == expected)
        #expect(jpeg.size.width >= 400 && jpeg.size.height >= 300)
    }

    @Test func targetSizeIgnoresAnEmptyThumbnailBox() {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = Self.size(0, 300)
        #expect(DecodeGeometry.targetSize(for: Self.size(5250, 3450), options: options) == Self.size(5250, 3450))
        options.thumbnailPixelSize = Self.size(400, 300)
        #expect(DecodeGeometry.targetSize(for: Self.size(5250, 3450), options: options) == Self.size(400, 263))
    }

    // MARK: Scale-down limit

    @Test func scaleDownHalvesEachSideForAQuarterOfTheBytes() {
        #expect(DecodeGeometry.scaledDown(Self.size(2000, 2000), limitBytes: 4_000_000, frameCount: 1) == Self.size(1000, 1000))
        var options = ImageCoderOptions()
        options.scaleDownLimitBytes = 4_000_000
        #expect(DecodeGeometry.targetSize(for: Self.size(2000, 2000), options: options) == Self.size(1000, 1000))
    }

    @Test func scaleDownSharesTheLimitAmongFrames() {
        #expect(DecodeGeometry.scaledDown(Self.size(2000, 2000), limitBytes: 4_000_000, frameCount: 4) == Self.size(500, 500))
        var options = ImageCoderOptions()
        options.scaleDownLimitBytes = 4_000_000
        #expect(DecodeGeometry.targetSize(for: Self.size(2000, 2000), frameCount: 4, options: options) == Self.size(500, 500))
    }

    @Test func scaleDownStaysWithinTheLimitAndKeepsTheAspectRatio() {
        for (source, limit, frames) in [(Self.size(5250, 3450), 1_000_000, 1), (Self.size(333, 777), 40_000, 3), (Self.size(4032, 3024), 123_457, 2)] {
            let result = DecodeGeometry.scaledDown(source, limitBytes: limit, frameCount: frames)
            #expect(result.width * result.height * 4 * frames <= limit, "\(source) \(limit)")
            let sourceRatio = Double(source.width) / Double(source.height)
            let resultRatio = Double(result.width) / Double(result.height)
            #expect(abs(sourceRatio - resultRatio) / sourceRatio < 0.02, "\(source) -> \(result)")
            // Not smaller than it needs to be: one more pixel on each side would not fit.
            #expect((result.width + 1) * (result.height + 1) * 4 * frames > limit, "\(source) -> \(result)")
        }
    }

    @Test func scaleDownLeavesAnImageWithinTheLimitAlone() {
        #expect(DecodeGeometry.scaledDown(Self.size(100, 100), limitBytes: 40_000, frameCount: 1) == Self.size(100, 100))
        #expect(DecodeGeometry.scaledDown(Self.size(100, 100), limitBytes: 4_000_000, frameCount: 10) == Self.size(100, 100))
    }

    @Test func scaleDownDoesNotOverflowOnHugeSizesOrFrameCounts() {
        let huge = DecodeGeometry.scaledDown(Self.size(Int.max, Int.max), limitBytes: 4_000_000, frameCount: 1)
        #expect(huge.width * huge.height <= 1_000_000)
        #expect(huge.width >= 1 && huge.height >= 1)
        // A frame count so large that no pixel is left per frame gives the smallest frames.
        #expect(DecodeGeometry.scaledDown(Self.size(100, 100), limitBytes: 4_000_000, frameCount: Int.max) == Self.size(1, 1))
    }

    /// SDWebImage's answer to a limit below one pixel: 1 × 1, never the full size (a limit
    /// may not give more pixels than any smaller limit).
    @Test(arguments: [1, 3, 7])
    func aLimitBelowOnePixelPerFrameGivesOnePixel(limit: Int) throws {
        #expect(DecodeGeometry.scaledDown(Self.size(640, 480), limitBytes: limit, frameCount: 2) == Self.size(1, 1))
        var options = ImageCoderOptions()
        options.scaleDownLimitBytes = limit
        let image = try CodersManager.shared.decode(try Corpus.data("TestImage.png"), options: options)
        #expect(image.size == Self.size(1, 1))
    }

    @Test func thumbnailThenScaleDownBothApply() {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = Self.size(1000, 1000)
        options.scaleDownLimitBytes = 4 * 250_000
        #expect(DecodeGeometry.targetSize(for: Self.size(4000, 4000), options: options) == Self.size(500, 500))
    }

    // MARK: Pixel limit

    @Test func pixelLimitRefusesAHugeHeader() {
        #expect(throws: WebImageError.imageTooLarge(width: 60000, height: 60000, limit: 100_000_000)) {
            try DecodeGeometry.checkPixelLimit(width: 60000, height: 60000, options: ImageCoderOptions())
        }
    }

    @Test func pixelLimitAcceptsExactlyTheLimit() throws {
        try DecodeGeometry.checkPixelLimit(width: 10000, height: 10000, options: ImageCoderOptions())
        var options = ImageCoderOptions()
        options.pixelLimit = 100
        try DecodeGeometry.checkPixelLimit(width: 10, height: 10, options: options)
        #expect(throws: WebImageError.imageTooLarge(width: 11, height: 10, limit: 100)) {
            try DecodeGeometry.checkPixelLimit(width: 11, height: 10, options: options)
        }
    }

    @Test(arguments: [(0, 10), (10, 0), (0, 0), (-1, 10), (10, -5)])
    func pixelLimitRefusesAnEmptySizeAsBadData(width: Int, height: Int) {
        #expect(throws: WebImageError.badImageData("image declares an empty size \(width)x\(height)")) {
            try DecodeGeometry.checkPixelLimit(width: width, height: height, options: ImageCoderOptions())
        }
    }

    @Test(arguments: [(Int.max, Int.max), (Int.max, 2), (2, Int.max), (Int(Int32.max), Int(Int32.max) * 4)])
    func pixelLimitDoesNotOverflow(width: Int, height: Int) {
        #expect(throws: WebImageError.imageTooLarge(width: width, height: height, limit: 100_000_000)) {
            try DecodeGeometry.checkPixelLimit(width: width, height: height, options: ImageCoderOptions())
        }
    }

    // MARK: Decoded frame finisher

    @Test func finisherTargetSizeIsInUprightOrientation() {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = Self.size(400, 300)
        // Stored 3450 wide and 5250 tall, turned to 5250×3450 by orientation 6.
        let target = DecodeGeometry.targetSize(sourceSize: Self.size(3450, 5250), orientation: .right, frameCount: 1, options: options)
        #expect(target == Self.size(400, 263))
        options.applyOrientation = false
        let unturned = DecodeGeometry.targetSize(sourceSize: Self.size(3450, 5250), orientation: .right, frameCount: 1, options: options)
        #expect(unturned == Self.size(197, 300))
    }

    @Test func finisherResizesThenOrients() {
        var pixels = PixelBuffer(width: 40, height: 20, filling: .black)
        for y in 0..<20 { for x in 0..<20 { pixels[pixel: x, y] = .white } }   // white left half
        let finished = DecodeGeometry.finish(pixels, orientation: .right, target: Self.size(5, 10), options: ImageCoderOptions())
        #expect(finished.size == Self.size(5, 10))
        // Turned clockwise, the white left half becomes the top half.
        #expect(finished[pixel: 2, 0] == .white)
        #expect(finished[pixel: 2, 9] == .black)
    }

    /// Without the final resample (the image server's decode), a still is left as decoded
    /// for the caller's one resample, and animation frames are shrunk only to twice the
    /// target, so that frames kept until then do not cost the source's memory each.
    @Test func withoutTheFinalResampleStillsStayAndFramesShrinkToTwiceTheTarget() {
        let pixels = PixelBuffer(width: 400, height: 300, filling: RGBAColor(red: 1, green: 2, blue: 3))
        let target = ImageSize(width: 40, height: 30)
        var options = ImageCoderOptions()
        #expect(DecodeGeometry.finish(pixels, orientation: .up, target: target, options: options).size == target)
        options.resamplesToThumbnailSize = false
        options.decodeFirstFrameOnly = true
        #expect(DecodeGeometry.finish(pixels, orientation: .up, target: target, options: options).size == pixels.size)
        options.decodeFirstFrameOnly = false
        #expect(DecodeGeometry.finish(pixels, orientation: .up, target: target, options: options).size == ImageSize(width: 80, height: 60))
        // Turned a quarter: the target is upright, the pixels as stored.
        #expect(DecodeGeometry.finish(pixels, orientation: .right, target: ImageSize(width: 30, height: 40), options: options).size
            == ImageSize(width: 60, height: 80))
        // Within twice the target, nothing to shrink.
        #expect(DecodeGeometry.finish(pixels, orientation: .up, target: ImageSize(width: 300, height: 200), options: options).size == pixels.size)
    }
}
