import Foundation
import Testing
@testable import WebImage

@Suite("Progressive JPEG decoding")
struct ProgressiveJPEGTests {
    private static let grey = RGBAColor(red: 128, green: 128, blue: 128)

    /// Thumbnail boxes below are the sizes libjpeg's DCT scaling gives exactly (5250x3450
    /// at 1/8 is 657x432), so no resize runs: the resampler is slow in debug builds.
    private func thumbnail(_ side: Int) -> ImageCoderOptions {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: side, height: side)
        return options
    }

    /// Feeds, then finishes, and checks the shared contract: every partial has the final
    /// size and is incremental; the final image is the one-shot decode, exactly.
    private func run(
        _ data: Data, chunks: [Int], askEvery: Int, options: ImageCoderOptions = ImageCoderOptions()
    ) throws -> (partials: [Image], final: Image) {
        let decoder = JPEGProgressiveDecoder()
        let partials = try ProgressiveFeeder.feed(decoder, data, chunks: chunks, askEvery: askEvery, options: options)
        decoder.update(data, isFinal: true)
        let final = try #require(try decoder.currentImage(options: options))
        let oneShot = try JPEGCoder().decode(data, options: options)
        #expect(final.pixels == oneShot.pixels)
        #expect(final.orientation == oneShot.orientation)
        #expect(final.isThumbnail == oneShot.isThumbnail)
        #expect(!final.isIncremental)
        for partial in partials {
            #expect(partial.size == final.size)
            #expect(partial.isIncremental)
            #expect(partial.format == .jpeg)
        }
        return (partials, final)
    }

    @Test func baselineFedOneByteAtATimeShowsFinalRowsAboveGrey() throws {
        let data = try Corpus.data("TestImage.jpg")
        let (partials, final) = try run(data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 1), askEvery: 1)
        #expect(partials.count > 3)
        for partial in partials {
            let ok = ProgressiveFeeder.rowsAreFinalThenFill(partial.pixels, final: final.pixels, fill: Self.grey)
            #expect(ok)
        }
        // Rows arrive band by band: an early partial is mostly grey, the last one is not.
        let first = try #require(partials.first), last = try #require(partials.last)
        #expect(first.pixels[pixel: 0, first.size.height - 1] == Self.grey)
        #expect(ProgressiveFeeder.meanDifference(last.pixels, final.pixels) < ProgressiveFeeder.meanDifference(first.pixels, final.pixels))
    }

    @Test func baselineInHundredByteChunksAppliesOrientationAndThumbnail() throws {
        let data = try Corpus.data("TestJFIF.jpg")   // 4032x3024, orientation in XMP
        let options = thumbnail(504)   // 1/4 scale: a thumbnail leaves a factor of two for the resample
        let (partials, final) = try run(
            data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 100), askEvery: data.count / 8, options: options)
        #expect(partials.count >= 6)
        #expect(final.isThumbnail)
        #expect(max(final.size.width, final.size.height) == 504)
        #expect(partials.allSatisfy { $0.isThumbnail && $0.orientation == final.orientation })
    }

    @Test func progressiveShowsScansThatConvergeOnTheFinalImage() throws {
        let data = try Corpus.data("TestImageLarge.jpg")   // 5250x3450, progressive
        let options = thumbnail(657)
        let (partials, final) = try run(
            data, chunks: ProgressiveFeeder.randomChunks(total: data.count, seed: 7, maxSize: 4000),
            askEvery: data.count / 12, options: options)
        #expect(partials.count >= 8)
        let differences = partials.map { ProgressiveFeeder.meanDifference($0.pixels, final.pixels) }
        // Each scan adds detail: the picture gets closer to the final one and ends close.
        let first = try #require(differences.first), last = try #require(differences.last)
        #expect(last < 3)
        #expect(last < first)
        // Early scans already cover the whole picture: no part of it stays plain grey.
        let midScan = partials[partials.count / 2].pixels
        #expect(midScan[pixel: midScan.width / 2, midScan.height - 1] != Self.grey || final.pixels[pixel: midScan.width / 2, midScan.height - 1] == Self.grey)
    }

    @Test func progressiveAtFullSizeFromSmallChunks() throws {
        let data = try Corpus.data("MonochromeTestImage.jpg")   // progressive greyscale
        let (partials, final) = try run(
            data, chunks: ProgressiveFeeder.randomChunks(total: data.count, seed: 42, maxSize: 300), askEvery: 1)
        #expect(partials.count > 5)
        #expect(ProgressiveFeeder.meanDifference(try #require(partials.last).pixels, final.pixels) < 3)
    }

    @Test func nothingDecodableBeforeTheFirstRows() throws {
        let data = try Corpus.data("TestImage.jpg")
        let decoder = JPEGProgressiveDecoder()
        #expect(try decoder.currentImage(options: ImageCoderOptions()) == nil)
        decoder.update(data.prefix(100), isFinal: false)   // inside the header
        #expect(try decoder.currentImage(options: ImageCoderOptions()) == nil)
    }

    @Test func truncatedFileGivesThePartialOneShotImageWhenFinal() throws {
        let data = try Corpus.data("TestImageLarge.jpg")
        let cut = data.prefix(data.count / 3)
        let decoder = JPEGProgressiveDecoder()
        let options = thumbnail(657)
        _ = try ProgressiveFeeder.feed(decoder, cut, chunks: ProgressiveFeeder.fixedChunks(total: cut.count, size: 20000), askEvery: 20000, options: options)
        decoder.update(cut, isFinal: true)
        let final = try #require(try decoder.currentImage(options: options))
        #expect(final.pixels == (try JPEGCoder().decode(cut, options: options)).pixels)
        #expect(!final.isIncremental)
    }

    @Test func changingThumbnailMidwayRestartsAtTheNewScale() throws {
        let data = try Corpus.data("TestImageLarge.jpg")
        let decoder = JPEGProgressiveDecoder()
        decoder.update(data.prefix(data.count / 2), isFinal: false)
        let small = try #require(try decoder.currentImage(options: thumbnail(657)))
        let large = try #require(try decoder.currentImage(options: thumbnail(1313)))
        #expect(max(small.size.width, small.size.height) == 657)
        #expect(max(large.size.width, large.size.height) == 1313)
    }

    @Test func shorterDataStartsOver() throws {
        let data = try Corpus.data("TestImage.jpg")
        let decoder = JPEGProgressiveDecoder()
        decoder.update(data.prefix(2500), isFinal: false)
        _ = try decoder.currentImage(options: ImageCoderOptions())
        decoder.update(data.prefix(1500), isFinal: false)
        let restarted = try #require(try decoder.currentImage(options: ImageCoderOptions()))
        let final = try JPEGCoder().decode(data, options: ImageCoderOptions())
        let ok = ProgressiveFeeder.rowsAreFinalThenFill(restarted.pixels, final: final.pixels, fill: Self.grey)
        #expect(ok)
    }

    @Test func headerOfManyMetadataMarkersFailsAsItArrives() throws {
        // The count resumes where the last call stopped, so a header fed in small pieces
        // is walked once, not once per piece.
        let data = try Corpus.data("TestImage.jpg")
        let hostile = JPEGCoderCorruptInputTests.withEmptyAPP1Markers(data, count: 160_000, at: 2)
        let decoder = JPEGProgressiveDecoder()
        let started = ContinuousClock.now
        let error = #expect(throws: WebImageError.self) {
            _ = try ProgressiveFeeder.feed(decoder, hostile, chunks: Array(repeating: 997, count: hostile.count / 997 + 1), askEvery: 997)
        }
        guard case .badImageData(let reason)? = error else {
            Issue.record("expected badImageData, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("APP1/APP2 markers"))
        #expect(ContinuousClock.now - started < TestTime.prompt)
        // A few hundred, split at every byte boundary, still decode to the one-shot image.
        let tolerable = JPEGCoderCorruptInputTests.withEmptyAPP1Markers(data, count: 300, at: 2)
        _ = try run(tolerable, chunks: Array(repeating: 1, count: 1_400) + [tolerable.count], askEvery: 100)
    }

    @Test func hugeHeaderFailsQuicklyWithImageTooLarge() throws {
        var bytes = [UInt8](try Corpus.data("TestImage.jpg"))
        // The SOF0 marker's height and width fields: make them 60000 x 60000.
        let sof = try #require((0..<bytes.count - 9).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = 0xEA; bytes[sof + 6] = 0x60; bytes[sof + 7] = 0xEA; bytes[sof + 8] = 0x60
        let started = ContinuousClock.now
        let decoder = JPEGProgressiveDecoder()
        decoder.update(Data(bytes), isFinal: false)
        // Refused from the frame header, before 14.4 GB of pixels are allocated.
        #expect(throws: WebImageError.imageTooLarge(width: 60000, height: 60000, limit: ImageCoderOptions().pixelLimit)) {
            try decoder.currentImage(options: ImageCoderOptions())
        }
        #expect(ContinuousClock.now - started < TestTime.prompt)
    }
}
