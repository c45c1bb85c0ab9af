import Foundation
import Testing
@testable import WebImage

@Suite("Progressive WebP decoding")
struct ProgressiveWebPTests {
    /// Feeds, then finishes, and checks the shared contract: every partial has the final
    /// size and is incremental; the final image is the one-shot decode, exactly.
    private func run(
        _ data: Data, chunks: [Int], askEvery: Int, options: ImageCoderOptions = ImageCoderOptions()
    ) throws -> (partials: [Image], final: Image) {
        let decoder = WebPProgressiveDecoder()
        let partials = try ProgressiveFeeder.feed(decoder, data, chunks: chunks, askEvery: askEvery, options: options)
        decoder.update(data, isFinal: true)
        let final = try #require(try decoder.currentImage(options: options))
        let oneShot = try WebPCoder().decode(data, options: options)
        #expect(final.frames == oneShot.frames)
        #expect(final.loopCount == oneShot.loopCount)
        #expect(!final.isIncremental)
        for partial in partials {
            #expect(partial.size == final.size)
            #expect(partial.isIncremental)
            #expect(partial.hasAlpha == final.hasAlpha)
        }
        return (partials, final)
    }

    private static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("webp/\(name)"))
    }

    @Test func lossyStillShowsFinalRowsAboveTransparency() throws {
        let data = try Corpus.data("TestImageStatic.webp")
        let (partials, final) = try run(
            data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 100), askEvery: data.count / 20)
        #expect(partials.count >= 10)
        for partial in partials {
            let ok = ProgressiveFeeder.rowsAreFinalThenFill(partial.pixels, final: final.pixels, fill: .clear)
            #expect(ok)
        }
    }

    @Test func scaledStillDecodesRowsAtTheThumbnailSize() throws {
        let data = try Corpus.data("TestImageStatic.webp")
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 275, height: 275)
        let (partials, final) = try run(
            data, chunks: ProgressiveFeeder.randomChunks(total: data.count, seed: 9, maxSize: 1500), askEvery: data.count / 10, options: options)
        #expect(final.isThumbnail && final.size.width == 275)
        #expect(partials.count >= 5)
        #expect(partials.allSatisfy { $0.isThumbnail })
        let last = try #require(partials.last)
        let ok = ProgressiveFeeder.rowsAreFinalThenFill(last.pixels, final: final.pixels, fill: .clear)
        #expect(ok)
    }

    /// A review's finding: partial images of a still WebP ignored its ICC profile, so a
    /// Display P3 image changed colour when its download completed. Converted, the rows so
    /// far are the final rows; kept, the partial carries the profile.
    @Test func partialStillsHaveTheFinalColours() throws {
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("color/display-p3.webp"))
        let (partials, final) = try run(
            data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 200), askEvery: data.count / 8)
        #expect(!partials.isEmpty)
        for partial in partials {
            #expect(ProgressiveFeeder.rowsAreFinalThenFill(partial.pixels, final: final.pixels, fill: .clear))
        }
        var keeping = ImageCoderOptions()
        keeping.keepsColorProfile = true
        let (kept, keptFinal) = try run(
            data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 200), askEvery: data.count / 8, options: keeping)
        #expect(keptFinal.colorProfile != nil)
        #expect(!kept.isEmpty && kept.allSatisfy { $0.colorProfile == keptFinal.colorProfile })
    }

    @Test func losslessWithAlphaFedOneByteAtATime() throws {
        let data = try Self.fixture("lossless_alpha.webp")
        let (partials, final) = try run(data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 1), askEvery: 1)
        #expect(!partials.isEmpty)
        #expect(final.hasAlpha)
    }

    @Test func animationShowsTheWholeFramesSoFar() throws {
        let data = try Corpus.data("TestImageAnimated.webp")
        let (partials, final) = try run(data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 1), askEvery: 1)
        let counts = partials.map(\.frameCount)
        #expect(counts == counts.sorted())
        #expect(Set(counts).count >= 4)
        let firstCount = try #require(counts.first), lastCount = try #require(counts.last)
        #expect(firstCount == 1)
        #expect(lastCount == final.frameCount)   // the last byte completes the last frame
        // Each partial's frames are the final animation's first frames (checked once per count).
        var checked = Set<Int>()
        for partial in partials where checked.insert(partial.frameCount).inserted {
            let same = Array(final.frames.prefix(partial.frameCount)).map(\.pixels) == partial.frames.map(\.pixels)
            #expect(same)
        }
    }

    @Test func headerClaimingAHugeCanvasFailsWithImageTooLarge() throws {
        var bytes = [UInt8](try Corpus.data("TestImageAnimated.webp"))
        // VP8X canvas width-1 and height-1 (24-bit each) at offsets 24 and 27: 60000 x 60000.
        let side = 60000 - 1
        for offset in [24, 27] {
            bytes[offset] = UInt8(side & 0xFF); bytes[offset + 1] = UInt8(side >> 8 & 0xFF); bytes[offset + 2] = UInt8(side >> 16)
        }
        let decoder = WebPProgressiveDecoder()
        decoder.update(Data(bytes.prefix(200)), isFinal: false)
        #expect(throws: WebImageError.imageTooLarge(width: 60000, height: 60000, limit: ImageCoderOptions().pixelLimit)) {
            try decoder.currentImage(options: ImageCoderOptions())
        }
    }

    @Test func truncatedStillGivesTheOneShotOutcomeWhenFinal() throws {
        let data = try Corpus.data("TestImageStatic.webp")
        let cut = data.prefix(data.count / 2)
        let decoder = WebPProgressiveDecoder()
        decoder.update(cut, isFinal: false)
        let partial = try #require(try decoder.currentImage(options: ImageCoderOptions()))
        #expect(partial.pixels[pixel: 0, partial.size.height - 1] == .clear)
        decoder.update(cut, isFinal: true)
        #expect(throws: WebImageError.self) { try decoder.currentImage(options: ImageCoderOptions()) }
    }
}
