import Foundation
import Testing
@testable import WebImage

@Suite("Progressive GIF decoding")
struct ProgressiveGIFTests {
    /// Feeds, then finishes, and checks the shared contract: every partial has the final
    /// size, is incremental and holds the final animation's first frames; the final image
    /// is the one-shot decode, exactly.
    private func run(
        _ data: Data, chunks: [Int], askEvery: Int, options: ImageCoderOptions = ImageCoderOptions()
    ) throws -> (partials: [Image], final: Image) {
        let decoder = GIFProgressiveDecoder()
        let partials = try ProgressiveFeeder.feed(decoder, data, chunks: chunks, askEvery: askEvery, options: options)
        decoder.update(data, isFinal: true)
        let final = try #require(try decoder.currentImage(options: options))
        let oneShot = try GIFCoder().decode(data, options: options)
        #expect(final.frames == oneShot.frames)
        #expect(final.loopCount == oneShot.loopCount)
        #expect(!final.isIncremental)
        var checked = Set<Int>()
        for partial in partials {
            #expect(partial.size == final.size)
            #expect(partial.isIncremental)
            guard checked.insert(partial.frameCount).inserted, partial.frameCount > 1 else { continue }
            let same = Array(final.frames.prefix(partial.frameCount)) == partial.frames
            #expect(same)
        }
        let counts = partials.map(\.frameCount)
        #expect(counts == counts.sorted())
        return (partials, final)
    }

    private static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("gif/\(name)"))
    }

    @Test func smallAnimationFedOneByteAtATimeGainsFramesInOrder() throws {
        let data = try Corpus.data("TestImage.gif")
        let (partials, final) = try run(data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 1), askEvery: 1)
        #expect(Set(partials.map(\.frameCount)).count == final.frameCount)
        #expect(partials.first?.frameCount == 1)
    }

    @Test func hundredByteChunksWithAThumbnail() throws {
        let data = try Corpus.data("TestImage.gif")   // 50x50, 5 frames
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 25, height: 25)
        let (partials, final) = try run(
            data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 100), askEvery: 100, options: options)
        #expect(partials.count >= 5)
        #expect(final.size == ImageSize(width: 25, height: 25))
        #expect(partials.allSatisfy { $0.isThumbnail })
    }

    @Test func largeAnimationInHundredByteChunks() throws {
        let data = try Corpus.data("1@2x.gif")   // 400x400, 44 frames, 1 MB
        let (partials, final) = try run(
            data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 100), askEvery: data.count / 3)
        #expect(partials.count >= 2)
        #expect(try #require(partials.first).frameCount < final.frameCount)
    }

    @Test func randomChunksOfInterlacedAndLocalPaletteFrames() throws {
        for name in ["interlaced.gif", "local_palettes.gif", "disposal_previous.gif"] {
            let data = try Self.fixture(name)
            let (partials, final) = try run(data, chunks: ProgressiveFeeder.randomChunks(total: data.count, seed: 21, maxSize: 40), askEvery: 1)
            // Without partials `run` checks only the final image; the last one was asked for
            // with every byte there, so it holds every frame.
            #expect(!partials.isEmpty, "\(name)")
            #expect(partials.last?.frameCount == final.frameCount, "\(name)")
        }
    }

    @Test func wholeFrameCountMatchesTheOneShotDecodeOfEveryPrefix() throws {
        let data = try Corpus.data("TestLoopCount.gif")
        for end in stride(from: 1, through: data.count, by: 7) {
            let prefix = data.prefix(end)
            let counted = GIFProgressiveDecoder.wholeFrames(prefix)
            let decoded = (try? GIFCoder().decode(prefix, options: ImageCoderOptions()))?.frameCount ?? 0
            #expect(counted == decoded, "prefix of \(end) bytes")
        }
    }

    @Test func truncatedAnimationGivesTheWholeFramesWhenFinal() throws {
        let data = try Corpus.data("TestImage.gif")
        let cut = data.prefix(data.count * 2 / 3)
        let decoder = GIFProgressiveDecoder()
        decoder.update(cut, isFinal: true)
        let final = try #require(try decoder.currentImage(options: ImageCoderOptions()))
        #expect(final.frameCount == GIFProgressiveDecoder.wholeFrames(cut))
        #expect(final.frameCount < (try GIFCoder().decode(data, options: ImageCoderOptions())).frameCount)
    }

    @Test func hugeScreenFailsWithImageTooLarge() throws {
        var bytes = [UInt8](try Corpus.data("TestImage.gif"))
        bytes.replaceSubrange(6..<10, with: [0x60, 0xEA, 0x60, 0xEA])   // 60000 x 60000, little-endian
        let started = ContinuousClock.now
        let decoder = GIFProgressiveDecoder()
        decoder.update(Data(bytes), isFinal: false)
        // Refused from the screen descriptor, before a canvas of 14.4 GB is allocated.
        #expect(throws: WebImageError.imageTooLarge(width: 60000, height: 60000, limit: ImageCoderOptions().pixelLimit)) {
            try decoder.currentImage(options: ImageCoderOptions())
        }
        #expect(ContinuousClock.now - started < TestTime.prompt)
    }
}
