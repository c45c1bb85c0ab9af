import Foundation
import Testing
@testable import WebImage

/// GIFCoder against reference decodes (Fixtures/gif/references.json, made by
/// make_gif_fixtures.py from Pillow's per-frame pixel indices and a browser-rules
/// compositor), plus the behaviours that the references alone would not pin down.
@Suite struct GIFCoderTests {
    let coder = GIFCoder()

    @Test(arguments: [
        "disposal_keep.gif", "disposal_background.gif", "disposal_previous.gif", "disposal_previous_first.gif",
        "local_palettes.gif", "interlaced.gif", "past_edge.gif", "small_first_frame.gif", "delays_loop3.gif",
    ])
    func handMadeFileMatchesReferenceExactly(name: String) throws {
        try expectMatchesReference(GIFFixture.data(name), reference: GIFFixture.reference(name))
    }

    @Test(arguments: ["TestImage.gif", "TestLoopCount.gif", "1@2x.gif"])
    func corpusFileMatchesReferenceExactly(name: String) throws {
        try expectMatchesReference(Corpus.data(name), reference: GIFFixture.reference(name))
    }

    @Test func corpusFramesLoopsAndSizesAreSDWebImages() throws {
        let image = try coder.decode(Corpus.data("TestImage.gif"), options: ImageCoderOptions())
        #expect(image.frameCount == 5)
        #expect(image.loopCount == 0)
        #expect(image.size == ImageSize(width: 50, height: 50))
        #expect(image.format == .gif)
        let noLoopExtension = try coder.decode(Corpus.data("TestLoopCount.gif"), options: ImageCoderOptions())
        #expect(noLoopExtension.frameCount == 2)
        #expect(noLoopExtension.loopCount == 1)
        let large = try coder.decode(Corpus.data("1@2x.gif"), options: ImageCoderOptions())
        #expect(large.frameCount == 44)
        #expect(large.loopCount == 65535)
        #expect(abs(large.duration - 44 * 0.09) < 1e-9)
    }

    @Test func shortDelaysBecomeOneTenthOfASecondAndLoopCountIsKept() throws {
        let image = try coder.decode(GIFFixture.data("delays_loop3.gif"), options: ImageCoderOptions())
        // Stored delays 1, 2, 0 and 150 hundredths: only those under 11 ms are replaced.
        #expect(image.frames.map(\.duration) == [0.1, 0.02, 0.1, 1.5])
        #expect(image.loopCount == 3)
    }

    @Test func disposalToBackgroundClearsTheFrameAreaToTransparent() throws {
        let image = try coder.decode(GIFFixture.data("disposal_background.gif"), options: ImageCoderOptions())
        let green = RGBAColor(red: 40, green: 200, blue: 60)
        #expect(image.frames[1].pixels[pixel: 5, 5] == green)
        // Frame 1 (disposal 2) covered x 4..<14, y 4..<12; frame 2 draws elsewhere.
        #expect(image.frames[2].pixels[pixel: 5, 5] == .clear)
        #expect(image.frames[2].pixels[pixel: 13, 11] == .clear)
        #expect(image.frames[2].pixels[pixel: 14, 11] == GIFFixture.basicPattern(x: 14, y: 11, seed: 1))
    }

    @Test func disposalToPreviousRestoresWhatWasUnderTheFrame() throws {
        let image = try coder.decode(GIFFixture.data("disposal_previous.gif"), options: ImageCoderOptions())
        let blue = RGBAColor(red: 30, green: 60, blue: 230)
        // Frame 1 (disposal 3) is gone in frame 2, which shows frame 0 there again.
        #expect(image.frames[1].pixels[pixel: 3, 3] == RGBAColor(red: 40, green: 200, blue: 60))
        #expect(image.frames[2].pixels[pixel: 3, 3] == GIFFixture.basicPattern(x: 3, y: 3, seed: 2))
        #expect(image.frames[2].pixels[pixel: 8, 6] == blue)
        // A transparent pixel of frame 2 shows frame 0, not frame 1 (already restored).
        #expect(image.frames[2].pixels[pixel: 9, 6] == GIFFixture.basicPattern(x: 9, y: 6, seed: 2))
        #expect(image.frames[3].pixels[pixel: 8, 6] == GIFFixture.basicPattern(x: 8, y: 6, seed: 2))
    }

    @Test func disposalToPreviousOnTheFirstFrameRestoresTheEmptyCanvas() throws {
        let image = try coder.decode(GIFFixture.data("disposal_previous_first.gif"), options: ImageCoderOptions())
        #expect(image.frames[0].pixels[pixel: 0, 2].alpha == 255)
        #expect(image.frames[1].pixels[pixel: 0, 2] == .clear)
        #expect(image.frames[1].pixels[pixel: 0, 12].alpha == 255)
    }

    @Test func smallFirstFrameLeavesTheRestOfTheCanvasTransparent() throws {
        let image = try coder.decode(GIFFixture.data("small_first_frame.gif"), options: ImageCoderOptions())
        #expect(image.frameCount == 1)
        #expect(image.frames[0].duration == 0)
        #expect(image.loopCount == 1)
        #expect(image.hasAlpha)
        #expect(image.pixels[pixel: 0, 0] == .clear)
        #expect(image.pixels[pixel: 4, 4].alpha == 255)
    }

    @Test func framesPastTheCanvasEdgeAreClipped() throws {
        let image = try coder.decode(GIFFixture.data("past_edge.gif"), options: ImageCoderOptions())
        #expect(image.frames.allSatisfy { $0.pixels.size == ImageSize(width: 20, height: 16) })
        #expect(image.frames[1].pixels[pixel: 19, 15] == GIFFixture.basicPattern(x: 7, y: 5, seed: 5, colours: 8))
        // Frame 1 had disposal 2; frame 2 lies wholly outside the canvas and draws nothing.
        #expect(image.frames[2].pixels[pixel: 19, 15] == .clear)
        #expect(image.frames[2].pixels[pixel: 0, 0] == image.frames[0].pixels[pixel: 0, 0])
    }

    @Test func localColourTablesApplyOnlyToTheirFrame() throws {
        let image = try coder.decode(GIFFixture.data("local_palettes.gif"), options: ImageCoderOptions())
        // Frame 3 has no local table: index 1 is the global white, not the 16-colour table's entry.
        #expect(image.frames[3].pixels[pixel: 5, 5] == .white)
        #expect(image.frames[3].pixels[pixel: 6, 5] == .black)
        // Frame 2's 256-entry table: pixel n has index n % 256.
        let index = (7 * 20 + 3) % 256
        #expect(image.frames[2].pixels[pixel: 3, 7] == RGBAColor(red: UInt8(index), green: UInt8((index * 7) % 256), blue: UInt8(255 - index)))
        #expect(!image.hasAlpha)
    }

    @Test func interlacedRowsLandInDisplayOrder() throws {
        let image = try coder.decode(GIFFixture.data("interlaced.gif"), options: ImageCoderOptions())
        // Row y of frame 0 uses colour (3y + x/5) % 32 of a table where entry i = (8i, 37i, 255-5i).
        for y in 0..<19 {
            let i = (3 * y) % 32
            let expected = RGBAColor(red: UInt8((i * 8) % 256), green: UInt8((i * 37) % 256), blue: UInt8((255 - i * 5) % 256))
            #expect(image.frames[0].pixels[pixel: 0, y] == expected, "row \(y)")
        }
    }

    @Test func lzwDataEndingEarlyShowsTheRowsThatArrived() throws {
        let image = try coder.decode(GIFFixture.data("short_lzw_data.gif"), options: ImageCoderOptions())
        #expect(image.frameCount == 2)
        #expect(image.frames[0].pixels[pixel: 5, 3] == GIFFixture.basicPattern(x: 5, y: 3, seed: 0))
        #expect(image.frames[0].pixels[pixel: 5, 4] == .clear)
        // The next frame is read from the right place.
        #expect(image.frames[1].pixels[pixel: 2, 2] == RGBAColor(red: 0, green: 130, blue: 140))
        #expect(image.frames[1].pixels[pixel: 2, 4] == .clear)
    }

    @Test func frameWithoutAnyColourTableIsBadData() throws {
        let error = GIFFixture.decodeError(try GIFFixture.data("no_colour_table.gif"))
        #expect(GIFFixture.isBadImageData(error))
    }

    @Test func decodeFirstFrameOnlyGivesTheFirstCompositedFrame() throws {
        let data = try Corpus.data("1@2x.gif")
        var options = ImageCoderOptions()
        options.decodeFirstFrameOnly = true
        let first = try coder.decode(data, options: options)
        #expect(first.frameCount == 1)
        #expect(first.loopCount == 1)
        #expect(FixtureChecksum.crc32(first.pixels.bytes) == (try GIFFixture.reference("1@2x.gif").crc32[0]))
    }

    @Test func decodeFirstFrameOnlyNeedsOnlyOneFrameWithinThePixelLimit() throws {
        let data = try Corpus.data("1@2x.gif")
        var options = ImageCoderOptions()
        options.pixelLimit = 400 * 400 * 2
        #expect(GIFFixture.isTooLarge(GIFFixture.decodeError(data, options)))
        options.decodeFirstFrameOnly = true
        #expect(try coder.decode(data, options: options).frameCount == 1)
    }

    @Test func decodeFirstFrameOnlyIgnoresGarbageAfterTheFirstFrame() throws {
        let data = try Corpus.data("TestImage.gif")
        let end = try #require(GIFFixture.frameEnds(data).first)
        var damaged = data.prefix(end)
        damaged.append(Data(repeating: 0x2C, count: 64))
        var options = ImageCoderOptions()
        options.decodeFirstFrameOnly = true
        let image = try coder.decode(damaged, options: options)
        #expect(FixtureChecksum.crc32(image.pixels.bytes) == (try GIFFixture.reference("TestImage.gif").crc32[0]))
    }

    @Test func thumbnailAppliesToEveryFrame() throws {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 20, height: 20)
        let image = try coder.decode(Corpus.data("TestImage.gif"), options: options)
        #expect(image.frameCount == 5)
        #expect(image.isThumbnail)
        #expect(image.frames.allSatisfy { $0.pixels.size == ImageSize(width: 20, height: 20) })
    }

    @Test func scaleDownLimitCountsEveryFrame() throws {
        var options = ImageCoderOptions()
        options.scaleDownLimitBytes = 5 * 4 * 20 * 20
        let image = try coder.decode(Corpus.data("TestImage.gif"), options: options)
        #expect(image.frameCount == 5)
        #expect(image.isThumbnail)
        // A limit meant for 5 frames gives 20x20 each, not the 44x44 one frame would fit.
        #expect(image.frames.allSatisfy { $0.pixels.size == ImageSize(width: 20, height: 20) })
    }

    @Test func fullSizeDecodeIsNotAThumbnail() throws {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 500, height: 500)
        options.scaleFactor = 2
        let image = try coder.decode(Corpus.data("TestImage.gif"), options: options)
        #expect(!image.isThumbnail)
        #expect(image.scale == 2)
        #expect(image.size == ImageSize(width: 50, height: 50))
    }

    @Test func recognisesOnlyTheGIFSignature() throws {
        #expect(coder.canDecode(try Corpus.data("TestImage.gif")))
        #expect(!coder.canDecode(try Corpus.data("TestImage.png")))
        #expect(GIFFixture.isBadImageData(GIFFixture.decodeError(try Corpus.data("TestImage.png"))))
    }

    private func expectMatchesReference(_ data: Data, reference: FrameChecksumReference) throws {
        let image = try coder.decode(data, options: ImageCoderOptions())
        reference.expectMatches(image, loopCount: reference.frameCount > 1 ? reference.loopCount : 1)
    }
}

/// The GIF fixtures, their references, and small checks the GIF suites share.
enum GIFFixture {
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("gif").appendingPathComponent(name))
    }

    static func reference(_ name: String) throws -> FrameChecksumReference {
        try FrameChecksumReference.load("gif", name)
    }

    /// Colour of make_gif_fixtures.py's `pattern` at (x, y) in the BASIC table.
    static func basicPattern(x: Int, y: Int, seed: Int, colours: Int = 4) -> RGBAColor {
        let basic: [(UInt8, UInt8, UInt8)] = [
            (220, 40, 40), (40, 200, 60), (30, 60, 230), (250, 250, 250),
            (120, 120, 0), (0, 130, 140), (90, 0, 110), (10, 10, 10),
        ]
        let c = basic[(x * 3 + y * 5 + seed) % colours]
        return RGBAColor(red: c.0, green: c.1, blue: c.2)
    }

    /// The offset just past each image's data sub-blocks, in order.
    static func frameEnds(_ data: Data) -> [Int] {
        let bytes = [UInt8](data)
        var ends: [Int] = []
        var pos = 13
        if bytes[10] & 0x80 != 0 { pos += 3 << (Int(bytes[10] & 7) + 1) }
        func skipBlocks(_ start: Int) -> Int {
            var p = start
            while bytes[p] != 0 { p += Int(bytes[p]) + 1 }
            return p + 1
        }
        while pos < bytes.count {
            switch bytes[pos] {
            case 0x21:
                pos = skipBlocks(pos + 2)
            case 0x2C:
                pos += 10
                if bytes[pos - 1] & 0x80 != 0 { pos += 3 << (Int(bytes[pos - 1] & 7) + 1) }
                pos = skipBlocks(pos + 1)
                ends.append(pos)
            default:
                return ends
            }
        }
        return ends
    }

    static func decodeError(_ data: Data, _ options: ImageCoderOptions = ImageCoderOptions()) -> WebImageError? {
        GIFCoder().decodeError(data, options: options)
    }

    static func isBadImageData(_ error: WebImageError?) -> Bool {
        if case .badImageData = error { return true }
        return false
    }

    static func isTooLarge(_ error: WebImageError?) -> Bool {
        if case .imageTooLarge = error { return true }
        return false
    }
}
