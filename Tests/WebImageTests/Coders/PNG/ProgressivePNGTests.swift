import Foundation
import Testing
@testable import WebImage

@Suite("Progressive PNG decoding")
struct ProgressivePNGTests {
    /// Feeds, then finishes, and checks the shared contract: every partial has the final
    /// size and is incremental; the final image is the one-shot decode, exactly.
    private func run(
        _ data: Data, chunks: [Int], askEvery: Int, options: ImageCoderOptions = ImageCoderOptions()
    ) throws -> (partials: [Image], final: Image) {
        let decoder = PNGProgressiveDecoder()
        let partials = try ProgressiveFeeder.feed(decoder, data, chunks: chunks, askEvery: askEvery, options: options)
        decoder.update(data, isFinal: true)
        let final = try #require(try decoder.currentImage(options: options))
        let oneShot = try PNGCoder().decode(data, options: options)
        #expect(final.frames == oneShot.frames)
        #expect(final.orientation == oneShot.orientation)
        #expect(final.hasAlpha == oneShot.hasAlpha)
        #expect(!final.isIncremental)
        for partial in partials {
            #expect(partial.size == final.size)
            #expect(partial.isIncremental)
            #expect(partial.hasAlpha == final.hasAlpha)
        }
        return (partials, final)
    }

    private static func matrix(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("png/matrix/\(name)"))
    }

    /// Whether each pixel of `partial` is transparent black (not reached yet) or a copy of
    /// a final pixel up and left of it in its 8x8 Adam7 block (a pass's blocky pixel).
    private static func isBlockyPassesOf(_ partial: PixelBuffer, final: PixelBuffer) -> Bool {
        for y in 0..<partial.height {
            for x in 0..<partial.width {
                let pixel = partial[pixel: x, y]
                if pixel == .clear { continue }
                var found = false
                for sy in (y & ~7)...y where !found {
                    for sx in (x & ~7)...x where final[pixel: sx, sy] == pixel { found = true }
                }
                if !found { return false }
            }
        }
        return true
    }

    @Test func everyInterlacedMatrixFileFedOneByteAtATimeShowsCombinedPasses() throws {
        let names = try FileManager.default.contentsOfDirectory(
            at: Corpus.fixtures.appendingPathComponent("png/matrix"), includingPropertiesForKeys: nil)
            .map(\.lastPathComponent).filter { $0.hasSuffix("_adam7.png") }.sorted()
        #expect(names.count >= 20)
        for name in names {
            let data = try Self.matrix(name)
            let (partials, final) = try run(data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 1), askEvery: 1)
            #expect(!partials.isEmpty, "\(name)")
            // Most bytes change nothing; check each distinct picture once.
            var distinct: [PixelBuffer] = []
            for partial in partials where partial.pixels != distinct.last { distinct.append(partial.pixels) }
            let blocky = distinct.allSatisfy { Self.isBlockyPassesOf($0, final: final.pixels) }
            #expect(blocky, "\(name)")
            // Adam7 passes arrive one after another: several distinct pictures before the last.
            #expect(distinct.count >= 3, "\(name)")
        }
    }

    @Test func interlacedPassesRefineTowardsTheFinalImage() throws {
        let data = try Self.matrix("ct6_d8_adam7.png")
        let (partials, final) = try run(data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 1), askEvery: 1)
        let differences = partials.map { ProgressiveFeeder.meanDifference($0.pixels, final.pixels) }
        let first = try #require(differences.first), last = try #require(differences.last)
        #expect(last < first)
    }

    @Test func nonInterlacedFilesShowFinalRowsAboveTransparency() throws {
        for (name, chunk) in [("TestImage.png", 100), ("IndexedPNG.png", 37), ("RGBA16PNG.png", 1)] {
            let data = try Corpus.data(name)
            let (partials, final) = try run(
                data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: chunk), askEvery: max(16, data.count / 60))
            #expect(partials.count > 3, "\(name)")
            for partial in partials {
                let ok = ProgressiveFeeder.rowsAreFinalThenFill(partial.pixels, final: final.pixels, fill: .clear)
                #expect(ok, "\(name)")
            }
        }
    }

    @Test func randomChunksOfAnAnimatedPNGShowTheDefaultImageThenEveryFrame() throws {
        let data = try Corpus.data("TestImageAnimated.apng")
        let (partials, final) = try run(
            data, chunks: ProgressiveFeeder.randomChunks(total: data.count, seed: 11, maxSize: 3000), askEvery: data.count / 10)
        #expect(partials.count >= 5)
        #expect(partials.allSatisfy { $0.frameCount == 1 })
        #expect(final.frameCount > 1)
    }

    @Test func orientationAndThumbnailApplyToPartialImages() throws {
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("png/exif_orientation6.png"))
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 4, height: 4)
        let (partials, final) = try run(
            data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 1), askEvery: 1, options: options)
        #expect(!partials.isEmpty)
        #expect(final.orientation != .up)
        #expect(final.isThumbnail)
        #expect(partials.allSatisfy { $0.orientation == final.orientation && $0.isThumbnail })
    }

    /// A PNG oriented by XMP alone (no `eXIf`): the partial images are turned as the final
    /// one is. They were read from `eXIf` only, so they came sideways and the final image
    /// upright.
    @Test func anXMPOrientationTurnsThePartialImagesToo() throws {
        let plain = try PNGCoder().encode(Image(pixels: PixelBuffer(width: 8, height: 4, filling: RGBAColor(red: 9, green: 9, blue: 9, alpha: 255))), as: .png, options: ImageCoderOptions())
        let xmp = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0]
            + Array("<x:xmpmeta><rdf:Description tiff:Orientation=\"6\"/></x:xmpmeta>".utf8)
        var chunk: [UInt8] = []
        chunk += withUnsafeBytes(of: UInt32(xmp.count).bigEndian, Array.init)
        chunk += Array("iTXt".utf8) + xmp
        chunk += withUnsafeBytes(of: FixtureChecksum.crc32(Array("iTXt".utf8) + xmp).bigEndian, Array.init)
        // After the signature and IHDR (8 + 25 bytes), before the image data.
        let data = plain.prefix(33) + Data(chunk) + plain.dropFirst(33)
        let oneShot = try PNGCoder().decode(data, options: ImageCoderOptions())
        #expect(oneShot.orientation == .right)
        #expect(oneShot.size == ImageSize(width: 4, height: 8))
        let (partials, final) = try run(data, chunks: ProgressiveFeeder.fixedChunks(total: data.count, size: 16), askEvery: 1, options: ImageCoderOptions())
        #expect(!partials.isEmpty)
        #expect(final.orientation == .right)
        #expect(partials.allSatisfy { $0.orientation == .right && $0.size == ImageSize(width: 4, height: 8) })
    }

    @Test func truncatedFileGivesTheOneShotOutcomeWhenFinal() throws {
        let data = try Corpus.data("TestImage.png")
        let cut = data.prefix(data.count / 2)
        let decoder = PNGProgressiveDecoder()
        decoder.update(cut, isFinal: false)
        let partial = try #require(try decoder.currentImage(options: ImageCoderOptions()))
        #expect(partial.pixels[pixel: 0, partial.size.height - 1] == .clear)
        decoder.update(cut, isFinal: true)
        // PNGCoder refuses truncated image data; the final answer is the same error.
        #expect(throws: WebImageError.self) { try decoder.currentImage(options: ImageCoderOptions()) }
        #expect(throws: WebImageError.self) { try PNGCoder().decode(cut, options: ImageCoderOptions()) }
    }

    @Test func hugeHeaderFailsWithImageTooLargeBeforeAnyAllocation() throws {
        var bytes = [UInt8](try Corpus.data("TestImage.png"))
        // IHDR's width and height: 60000 x 60000 (the CRC is not fixed: the check comes first).
        bytes.replaceSubrange(16..<24, with: [0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60])
        let decoder = PNGProgressiveDecoder()
        decoder.update(Data(bytes), isFinal: false)
        #expect(throws: WebImageError.imageTooLarge(width: 60000, height: 60000, limit: ImageCoderOptions().pixelLimit)) {
            try decoder.currentImage(options: ImageCoderOptions())
        }
    }

    @Test func emptyAndNonPNGData() throws {
        let decoder = PNGProgressiveDecoder()
        #expect(try decoder.currentImage(options: ImageCoderOptions()) == nil)
        decoder.update(Data(repeating: 7, count: 64), isFinal: false)
        #expect(throws: WebImageError.self) { try decoder.currentImage(options: ImageCoderOptions()) }
    }
}
