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
        var random = FixtureRandom(seed: 0x7765_6270_21)
        var options = ImageCoderOptions()
        options.pixelLimit = 1 << 20   // a flipped header may claim a large canvas; keep the work small
        let sources = try [WebPFixture.data("animated_lossless.webp"), WebPFixture.data("lossless_alpha.webp"),
                           WebPFixture.data("orientation_6.webp"), Corpus.data("TestImageAnimated.webp")]
        var decoded = 0, refused = 0
        for round in 0..<400 {
            var bytes = [UInt8](sources[round % sources.count])
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let at = Int(random.next() % UInt64(bytes.count))
                bytes[at] ^= UInt8(1 + random.next() % 255)
            }
            do {
                let image = try coder.decode(Data(bytes), options: options)
                decoded += 1
                #expect(image.frames.allSatisfy { $0.pixels.size == image.size && $0.pixels.bytes.count == image.size.pixelCount * 4 })
                #expect(image.frameCount * image.size.pixelCount <= options.pixelLimit)
            } catch is WebImageError {
                refused += 1
            }
        }
        #expect(decoded > 0)
        #expect(refused > 0)
    }

    @Test func canvasClaiming60000By60000IsRefusedQuickly() throws {
        // RIFF, WEBP, and a VP8X chunk flagged as an animation: canvas 60000x60000 (stored minus one).
        let side: [UInt8] = [0x5F, 0xEA, 0x00]
        var bytes = Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0]
        bytes += [0x02, 0, 0, 0] + side + side
        let clock = ContinuousClock()
        let started = clock.now
        #expect(WebPFixture.decodeError(Data(bytes)) == .imageTooLarge(width: 60000, height: 60000, limit: ImageCoderOptions().pixelLimit))
        #expect(clock.now - started < .seconds(1))
    }

    @Test func losslessHeaderClaimingTheLargestSizeIsRefusedQuickly() throws {
        // A VP8L header for 16384x16384 (268 megapixels) and a few bytes of nothing.
        var bytes = Array("RIFF".utf8) + [24, 0, 0, 0] + Array("WEBPVP8L".utf8) + [12, 0, 0, 0]
        bytes += [0x2F, 0xFF, 0xFF, 0xFF, 0x0F] + [UInt8](repeating: 0, count: 7)
        let clock = ContinuousClock()
        let started = clock.now
        #expect(WebPFixture.decodeError(Data(bytes)) == .imageTooLarge(width: 16384, height: 16384, limit: ImageCoderOptions().pixelLimit))
        #expect(clock.now - started < .seconds(1))
    }

    @Test func emptyAndHeaderOnlyDataAreBadData() {
        #expect(WebPFixture.decodeError(Data()) == .badImageData("empty data"))
        #expect(WebPFixture.isBadImageData(WebPFixture.decodeError(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8))))
        #expect(WebPFixture.isBadImageData(WebPFixture.decodeError(Data("RIFF".utf8))))
    }

    /// Each cut must give `badImageData` (only when no frame is whole) or exactly the frames
    /// lying wholly before the cut, equal to the reference's.
    private func expectTruncationsGiveWholeFrames(_ data: Data, reference: WebPFixture.Reference, cuts: [Int]) throws {
        let ends = WebPFixture.frameEnds(data)
        #expect(ends.count == reference.frameCount)
        for cut in cuts {
            let whole = ends.filter { $0 <= cut }.count
            do {
                let image = try coder.decode(data.prefix(cut), options: ImageCoderOptions())
                #expect(image.frameCount == whole, "cut at \(cut)")
                let expected = Array(reference.crc32.prefix(image.frameCount))
                #expect(image.frames.map { FixtureChecksum.crc32($0.pixels.bytes) } == expected, "cut at \(cut)")
                if image.frameCount > 1 { #expect(image.loopCount == reference.loopCount, "cut at \(cut)") }
            } catch let error as WebImageError {
                #expect(whole == 0, "cut at \(cut) lost \(whole) whole frames: \(error)")
                #expect(WebPFixture.isBadImageData(error), "cut at \(cut): \(error)")
            }
        }
    }
}
