import Foundation
import Testing
@testable import WebImage

/// GIFCoder on truncated, corrupted, hostile and empty input: a typed error or the whole
/// frames, never a crash, a hang or a large allocation.
@Suite struct GIFCoderCorruptionTests {
    let coder = GIFCoder()

    @Test(arguments: [
        ("disposal_previous.gif", 1), ("interlaced.gif", 1), ("local_palettes.gif", 3), ("past_edge.gif", 1),
    ])
    func truncationAtEveryByteGivesWholeFramesOrBadData(name: String, step: Int) throws {
        try expectTruncationsGiveWholeFrames(GIFFixture.data(name), reference: GIFFixture.reference(name), step: step)
    }

    @Test func truncationOfACorpusFileGivesWholeFramesOrBadData() throws {
        try expectTruncationsGiveWholeFrames(
            Corpus.data("TestImage.gif"), reference: GIFFixture.reference("TestImage.gif"), step: 23)
    }

    @Test func largeAnimationCutInHalfKeepsTheFramesBeforeTheCut() throws {
        let data = try Corpus.data("1@2x.gif")
        let reference = try GIFFixture.reference("1@2x.gif")
        let ends = GIFFixture.frameEnds(data)
        #expect(ends.count == 44)
        let cut = ends[21] + 100   // inside frame 22's data
        let image = try coder.decode(data.prefix(cut), options: ImageCoderOptions())
        #expect(image.frameCount == 22)
        #expect(image.loopCount == 65535)
        #expect(image.frames.map { FixtureChecksum.crc32($0.pixels.bytes) } == Array(reference.crc32.prefix(22)))
    }

    @Test func seededByteFlipsGiveAnErrorOrSaneFrames() throws {
        var options = ImageCoderOptions()
        options.pixelLimit = 1 << 20   // a flipped header may claim a large screen; keep the work small
        let sources = try [Corpus.data("TestImage.gif"), GIFFixture.data("disposal_previous.gif"),
                           GIFFixture.data("interlaced.gif"), GIFFixture.data("local_palettes.gif")]
        // Flips land mostly in pixel data, which LZW decodes to other pixels; some break the structure.
        let copies = CorruptInputs.byteFlips(cycling: sources, seed: 0x6769_6621, rounds: 400)
        try CorruptInputChecks.expectErrorOrSaneFrames(decoding: copies, pixelLimit: options.pixelLimit) {
            try coder.decode($0, options: options)
        }
    }

    @Test func headerClaiming60000By60000IsRefusedQuickly() throws {
        var bytes: [UInt8] = Array("GIF89a".utf8) + [0x60, 0xEA, 0x60, 0xEA, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B]
        let clock = ContinuousClock()
        let started = clock.now
        let error = GIFFixture.decodeError(Data(bytes))
        #expect(error == .imageTooLarge(width: 60000, height: 60000, limit: ImageCoderOptions().pixelLimit))
        #expect(clock.now - started < TestTime.prompt)
    }

    @Test func frameDeclaringAHugeRectangleIsRefusedBeforeDecoding() throws {
        // A 10x10 screen with one frame that claims 65535x65535 and carries two bytes of data.
        var bytes: [UInt8] = Array("GIF89a".utf8) + [10, 0, 10, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        bytes += [0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B]
        let clock = ContinuousClock()
        let started = clock.now
        #expect(GIFFixture.isTooLarge(GIFFixture.decodeError(Data(bytes))))
        #expect(clock.now - started < TestTime.prompt)
    }

    /// A review's finding: a 1 × 1 screen over three frames of 8,000 × 8,000 (each within
    /// the limit on its own, two bytes of data each). Every frame is decoded whole however
    /// much the screen clips, so the rectangles together are the work of a one-shot decode;
    /// they are refused from the records before any pixel is decoded. A lazy frame source
    /// decodes one frame at a time, each rectangle within the limit on its own, as it
    /// holds one canvas: it opens the file.
    @Test func framesWhoseRectanglesTogetherPassTheLimitAreRefusedBeforeDecoding() throws {
        var bytes: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        for _ in 0..<3 {
            bytes += [0x2C, 0, 0, 0, 0, 0x40, 0x1F, 0x40, 0x1F, 0, 0x02, 0x02, 0x44, 0x01, 0x00]
        }
        bytes.append(0x3B)
        let limit = ImageCoderOptions().pixelLimit
        #expect(8_000 * 8_000 <= limit && 3 * 8_000 * 8_000 > limit)
        let tooLarge = WebImageError.imageTooLarge(width: 8_000, height: 8_000, limit: limit)
        #expect(GIFFixture.decodeError(Data(bytes)) == tooLarge)
        #expect(try AnimatedImage(data: Data(bytes)).frameCount == 3)
    }

    /// (Empty data is in ``CoderBadInputTests``.)
    @Test func headerOnlyDataIsBadData() {
        #expect(GIFFixture.isBadImageData(GIFFixture.decodeError(Data("GIF8".utf8))))
        let screenOnly: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B]
        #expect(GIFFixture.isBadImageData(GIFFixture.decodeError(Data(screenOnly))))
    }

    /// Cuts `data` at every `step`-th byte: each cut must give `badImageData` or frames that
    /// are exactly the reference's first frames, and never fewer frames than lie wholly
    /// before the cut.
    private func expectTruncationsGiveWholeFrames(_ data: Data, reference: FrameChecksumReference, step: Int) throws {
        try reference.expectTruncationsGiveWholeFrames(
            of: data, frameEnds: GIFFixture.frameEnds(data), cuts: Array(stride(from: 0, to: data.count, by: step)),
            checksLoopCount: false
        ) { try coder.decode($0, options: ImageCoderOptions()) }
    }
}
