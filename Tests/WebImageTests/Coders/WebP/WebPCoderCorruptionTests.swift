import Foundation
import Testing
@testable import WebImage

/// WebPCoder on truncated, corrupted, hostile and empty input: a typed error or the whole
/// frames, never a crash, a hang or a large allocation.
@Suite struct WebPCoderCorruptionTests {
    let coder = WebPCoder()

    @Test func truncatedAnimationGivesItsWholeFramesAtEveryCut() throws {
        let data = try WebPFixture.data("animated_lossless.webp")
        try expectTruncationsGiveWholeFrames(data, reference: WebPFixture.reference("animated_lossless.webp"),
                                             cuts: Array(0..<data.count))
    }

    @Test func truncatedCorpusAnimationGivesItsWholeFrames() throws {
        let data = try Corpus.data("TestAnimatedImageMemory.webp")
        let ends = WebPFixture.frameEnds(data)
        #expect(ends.count == 16)
        // Just before, at and just after a few frame ends, and a few points inside frames.
        let cuts = [100, ends[0] - 1, ends[0], ends[0] + 1, ends[5] - 200, ends[5], ends[14], data.count - 1]
        try expectTruncationsGiveWholeFrames(data, reference: WebPFixture.reference("TestAnimatedImageMemory.webp"), cuts: cuts)
    }

    @Test func truncatedStillImageIsBadData() throws {
        let data = try Corpus.data("TestImageStatic.webp")
        for cut in stride(from: 0, to: data.count, by: 997) {
            let error = WebPFixture.decodeError(data.prefix(cut))
            #expect(WebPFixture.isBadImageData(error), "cut at \(cut): \(String(describing: error))")
        }
        let lossless = try WebPFixture.data("lossless_alpha.webp")
        for cut in 0..<lossless.count {
            #expect(WebPFixture.isBadImageData(WebPFixture.decodeError(lossless.prefix(cut))), "cut at \(cut)")
        }
    }

    @Test func seededByteFlipsGiveAnErrorOrSaneFrames() throws {
        var options = ImageCoderOptions()
        options.pixelLimit = 1 << 20   // a flipped header may claim a large canvas; keep the work small
        let sources = try [WebPFixture.data("animated_lossless.webp"), WebPFixture.data("lossless_alpha.webp"),
                           WebPFixture.data("orientation_6.webp"), Corpus.data("TestImageAnimated.webp")]
        let copies = CorruptInputs.byteFlips(cycling: sources, seed: 0x7765_6270_21, rounds: 400)
        try CorruptInputChecks.expectErrorOrSaneFrames(decoding: copies, pixelLimit: options.pixelLimit) {
            try coder.decode($0, options: options)
        }
    }

    @Test func canvasClaiming60000By60000IsRefusedQuickly() throws {
        // RIFF, WEBP, and a VP8X chunk flagged as an animation: canvas 60000x60000 (stored minus one).
        let side: [UInt8] = [0x5F, 0xEA, 0x00]
        var bytes = Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0]
        bytes += [0x02, 0, 0, 0] + side + side
        let clock = ContinuousClock()
        let started = clock.now
        #expect(WebPFixture.decodeError(Data(bytes)) == .imageTooLarge(width: 60000, height: 60000, limit: ImageCoderOptions().pixelLimit))
        #expect(clock.now - started < TestTime.prompt)
    }

    @Test func losslessHeaderClaimingTheLargestSizeIsRefusedQuickly() throws {
        // A VP8L header for 16384x16384 (268 megapixels) and a few bytes of nothing.
        var bytes = Array("RIFF".utf8) + [24, 0, 0, 0] + Array("WEBPVP8L".utf8) + [12, 0, 0, 0]
        bytes += [0x2F, 0xFF, 0xFF, 0xFF, 0x0F] + [UInt8](repeating: 0, count: 7)
        let clock = ContinuousClock()
        let started = clock.now
        #expect(WebPFixture.decodeError(Data(bytes)) == .imageTooLarge(width: 16384, height: 16384, limit: ImageCoderOptions().pixelLimit))
        #expect(clock.now - started < TestTime.prompt)
    }

    @Test func emptyAndHeaderOnlyDataAreBadData() {
        #expect(WebPFixture.decodeError(Data()) == .badImageData("empty data"))
        #expect(WebPFixture.isBadImageData(WebPFixture.decodeError(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8))))
        #expect(WebPFixture.isBadImageData(WebPFixture.decodeError(Data("RIFF".utf8))))
    }

    /// Each cut must give `badImageData` (only when no frame is whole) or exactly the frames
    /// lying wholly before the cut, equal to the reference's.
    private func expectTruncationsGiveWholeFrames(_ data: Data, reference: FrameChecksumReference, cuts: [Int]) throws {
        try reference.expectTruncationsGiveWholeFrames(
            of: data, frameEnds: WebPFixture.frameEnds(data), cuts: cuts, checksLoopCount: true
        ) { try coder.decode($0, options: ImageCoderOptions()) }
    }
}
