import Foundation
import Testing
@testable import WebImage

/// The lazy frame sources against the one-shot decoders on the corpus's animated files and
/// the coders' fixtures: same frame count, loop count and durations, and frame N identical
/// whatever order the frames are asked for in.
@Suite struct AnimatedFrameSourceTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let file: String
        let frames: Int
        let loops: Int?
        var testDescription: String { file }
    }

    static let corpusCases: [Case] = [
        Case(file: "1@2x.gif", frames: 44, loops: nil),
        Case(file: "TestImage.gif", frames: 5, loops: nil),
        Case(file: "TestLoopCount.gif", frames: 2, loops: 1),
        Case(file: "TestImageAnimated.apng", frames: 101, loops: 0),
        Case(file: "TestImageLarge.png", frames: 4, loops: nil),
        Case(file: "TestImageAnimated.webp", frames: 8, loops: nil),
        Case(file: "TestAnimatedImageMemory.webp", frames: 16, loops: nil),
    ]

    static func source(for data: Data, options: ImageCoderOptions = ImageCoderOptions()) throws -> any AnimatedImageCoder {
        let type = try #require(AnimatedImage.coderTypes.first { $0.canDecodeAnimation(data) })
        return try type.init(animatedImageData: data, options: options)
    }

    static func oneShot(_ data: Data, options: ImageCoderOptions = ImageCoderOptions()) throws -> Image {
        try CodersManager.shared.decode(data, options: options)
    }

    @Test(arguments: corpusCases)
    func structureMatchesTheOneShotDecode(_ item: Case) throws {
        let data = try Corpus.data(item.file)
        let source = try Self.source(for: data)
        let image = try Self.oneShot(data)
        #expect(source.frameCount == item.frames)
        #expect(image.frameCount == item.frames)
        if let loops = item.loops { #expect(source.loopCount == loops) }
        #expect(source.loopCount == image.loopCount)
        #expect(source.properties.durations == image.frames.map(\.duration))
        #expect(source.properties.frameSize == image.size)
        #expect(source.properties.hasAlpha == image.hasAlpha)
        #expect(source.animatedImageData == data)
    }

    @Test(arguments: corpusCases)
    func framesEqualTheOneShotDecodeInAnyOrder(_ item: Case) throws {
        let data = try Corpus.data(item.file)
        let expected = try Self.oneShot(data).frames.map(\.pixels)
        let forward = try Self.source(for: data)
        for index in expected.indices {
            #expect(try forward.frame(at: index) == expected[index], "frame \(index) in order")
        }
        // Random order (seeded), then backward steps, on a fresh source.
        var generator = SplitMix64(seed: 0x5EED)
        let shuffled = expected.indices.shuffled(using: &generator).prefix(12)
        let random = try Self.source(for: data)
        for index in shuffled + Array(expected.indices.reversed().prefix(5)) {
            #expect(try random.frame(at: index) == expected[index], "frame \(index) out of order")
        }
    }

    /// Small files, so the one-shot decode's resizing of every frame stays quick in debug.
    @Test(arguments: ["TestImage.gif", "gif/local_palettes.gif", "png/dispose_previous_over.png", "webp/animated_lossless.webp"])
    func thumbnailAndScaleDownApplyToEveryFrame(_ file: String) throws {
        let data = file.contains("/")
            ? try Data(contentsOf: Corpus.fixtures.appendingPathComponent(file)) : try Corpus.data(file)
        let full = try Self.oneShot(data).size
        for configure in [{ (o: inout ImageCoderOptions) in o.thumbnailPixelSize = ImageSize(width: full.width / 2, height: full.height / 2) },
                          { (o: inout ImageCoderOptions) in o.scaleDownLimitBytes = full.pixelCount }] {
            var options = ImageCoderOptions()
            configure(&options)
            let source = try Self.source(for: data, options: options)
            let image = try Self.oneShot(data, options: options)
            #expect(source.properties.isThumbnail)
            #expect(source.properties.frameSize == image.size)
            #expect(image.size.pixelCount < full.pixelCount)
            for index in Array(image.frames.indices.reversed()) + [0] {
                #expect(try source.frame(at: index) == image.frames[index].pixels, "\(file) frame \(index)")
            }
        }
    }

    @Test func fixtureAnimationsMatchTheOneShotDecode() throws {
        let files = ["gif/disposal_previous.gif", "gif/disposal_background.gif", "gif/interlaced.gif",
                     "gif/local_palettes.gif", "gif/small_first_frame.gif", "gif/delays_loop3.gif",
                     "png/dispose_previous_over.png", "png/dispose_background_over.png",
                     "webp/animated_lossless.webp", "avif/animated.avif"]
        for file in files {
            let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent(file))
            let source = try Self.source(for: data)
            let image = try Self.oneShot(data)
            #expect(source.frameCount == image.frameCount, "\(file)")
            #expect(source.loopCount == image.loopCount, "\(file)")
            #expect(source.properties.durations == image.frames.map(\.duration), "\(file)")
            for index in Array(image.frames.indices.reversed()) + Array(image.frames.indices) {
                #expect(try source.frame(at: index) == image.frames[index].pixels, "\(file) frame \(index)")
            }
        }
    }

    @Test func avifSequenceSeeksThroughKeyframes() throws {
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("avif/animated.avif"))
        let source = try AVIFFrameSource(animatedImageData: data, options: ImageCoderOptions())
        let image = try AVIFCoder().decode(data, options: ImageCoderOptions())
        #expect(source.frameCount > 1)
        #expect(source.loopCount == 0)
        let last = source.frameCount - 1
        for index in [last, 0, last, 1, 0] {
            #expect(try source.frame(at: index) == image.frames[index].pixels)
        }
    }

    @Test(arguments: ["1@2x.gif", "TestImageAnimated.apng", "TestAnimatedImageMemory.webp"])
    func truncatedFilesGiveTheWholeFrames(_ file: String) throws {
        let data = try Corpus.data(file)
        let full = try Self.oneShot(data).frames.map(\.pixels)
        for cut in CorruptInputs.truncations(of: data, count: 9) {
            guard let source = try? Self.source(for: cut) else { continue }
            #expect(source.frameCount <= full.count)
            #expect(source.frameCount >= 1)
            // Every frame the truncated source reports is whole and equal to the full file's.
            for index in [0, source.frameCount / 2, source.frameCount - 1] {
                #expect(try source.frame(at: index) == full[index], "\(file) cut at \(cut.count), frame \(index)")
            }
        }
        // A cut in the last quarter keeps most frames.
        let late = try Self.source(for: data.prefix(data.count * 9 / 10))
        #expect(late.frameCount >= full.count / 2)
        #expect(late.frameCount < full.count)
    }

    @Test func corruptAndEmptyInputThrowsWithoutCrashing() throws {
        for file in ["1@2x.gif", "TestImageAnimated.apng", "TestAnimatedImageMemory.webp"] {
            let data = try Corpus.data(file)
            let type = try #require(AnimatedImage.coderTypes.first { $0.canDecodeAnimation(data) })
            #expect(throws: WebImageError.self) { try type.init(animatedImageData: Data(), options: ImageCoderOptions()) }
            for copy in CorruptInputs.byteFlips(of: data, seed: 7, count: 12) {
                guard let source = try? type.init(animatedImageData: copy, options: ImageCoderOptions()) else { continue }
                for index in [source.frameCount - 1, 0] {
                    _ = try? source.frame(at: index)
                }
            }
        }
    }

    @Test func hugeCanvasIsRefusedBeforeAllocating() throws {
        // A GIF header declaring a 60000×60000 screen, with nothing after it.
        var gif = Array("GIF89a".utf8)
        gif += [0x60, 0xEA, 0x60, 0xEA, 0x00, 0x00, 0x00]
        #expect(throws: WebImageError.imageTooLarge(width: 60000, height: 60000, limit: 100_000_000)) {
            try GIFFrameSource(animatedImageData: Data(gif), options: ImageCoderOptions())
        }
    }

    @Test func decodeFirstFrameOnlyGivesOneFrame() throws {
        var options = ImageCoderOptions()
        options.decodeFirstFrameOnly = true
        for file in ["1@2x.gif", "TestImageAnimated.apng", "TestAnimatedImageMemory.webp"] {
            let source = try Self.source(for: Corpus.data(file), options: options)
            #expect(source.frameCount == 1)
            #expect(source.loopCount == 1)
            #expect(source.duration(at: 0) == 0)
        }
    }
}
