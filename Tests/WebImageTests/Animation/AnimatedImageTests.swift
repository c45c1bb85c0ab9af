import Foundation
import Testing
@testable import WebImage

/// AnimatedImage: lazy frames from the file, memory cost of held frames only, preload and
/// unload, conversions to and from Image.
@Suite struct AnimatedImageTests {
    /// Frames decoded on demand are checked one canvas at a time; holding them all at once
    /// (preloading, or every frame as an Image) stays within the pixel limit a one-shot
    /// decode would have had, refused before any frame is decoded.
    @Test func holdingEveryFrameStaysWithinThePixelLimit() throws {
        // 10 frames of 8 × 8: 640 pixels in all.
        let small = try AnimatedImage(coder: SyntheticFrameSource(durations: Array(repeating: 0.1, count: 10)), pixelLimit: 639)
        #expect(throws: WebImageError.self) { try small.preloadAllFrames() }
        #expect(throws: WebImageError.self) { try small.image() }
        #expect(small.memoryCost == small.posterFrame.memoryCost)
        let enough = try AnimatedImage(coder: SyntheticFrameSource(durations: Array(repeating: 0.1, count: 10)), pixelLimit: 640)
        try enough.preloadAllFrames()
        #expect(enough.isAllFramesLoaded)
        #expect(try enough.image().frameCount == 10)
    }

    @Test func holdsOnlyThePosterUntilPreloaded() throws {
        let data = try Corpus.data("TestAnimatedImageMemory.webp")
        let animation = try AnimatedImage(data: data)
        let frameBytes = 600 * 600 * 4
        #expect(animation.frameCount == 16)
        #expect(animation.animatedImageData == data)
        #expect(animation.memoryCost >= frameBytes && animation.memoryCost < 2 * frameBytes)
        _ = try animation.frame(at: 9)
        #expect(animation.memoryCost < 2 * frameBytes)
        #expect(!animation.isAllFramesLoaded)
        try animation.preloadAllFrames()
        #expect(animation.isAllFramesLoaded)
        #expect(animation.memoryCost >= 16 * frameBytes)
        animation.unloadAllFrames()
        #expect(animation.memoryCost < 2 * frameBytes)
    }

    @Test func preloadOptionDecodesEveryFrameUpFront() throws {
        var options = ImageCoderOptions()
        options.preloadAllFrames = true
        let animation = try AnimatedImage(data: Corpus.data("TestImage.gif"), options: options)
        #expect(animation.isAllFramesLoaded)
        #expect(animation.memoryCost >= 5 * 50 * 50 * 4)
    }

    @Test func decodeFirstFrameOnlyGivesAStill() throws {
        var options = ImageCoderOptions()
        options.decodeFirstFrameOnly = true
        let animation = try AnimatedImage(data: Corpus.data("1@2x.gif"), options: options)
        #expect(animation.frameCount == 1)
        #expect(!animation.isAnimated)
        #expect(animation.loopCount == 1)
    }

    @Test func convertsToAnImageWithEveryFrame() throws {
        let data = try Corpus.data("TestImageLarge.png")
        let image = try AnimatedImage(data: data).image()
        let oneShot = try CodersManager.shared.decode(data)
        #expect(image.frames == oneShot.frames)
        #expect(image.loopCount == oneShot.loopCount)
        #expect(image.format == .png)
    }

    @Test func wrapsDecodedFramesAndStillFiles() throws {
        let gif = try CodersManager.shared.decode(Corpus.data("TestImage.gif"))
        let fromImage = AnimatedImage(image: gif)
        #expect(fromImage.animatedImageData == nil)
        #expect(fromImage.isAllFramesLoaded)
        #expect(fromImage.durations == gif.frames.map(\.duration))
        #expect(try fromImage.frame(at: 4) == gif.frames[4].pixels)
        let jpeg = try AnimatedImage(data: Corpus.data("TestImage.jpg"))
        #expect(jpeg.frameCount == 1)
        #expect(jpeg.format == .jpeg)
        #expect(jpeg.posterImage.size == jpeg.size)
    }

    @Test func playsARealFileThroughWithASmallBuffer() throws {
        let animation = try AnimatedImage(data: Corpus.data("TestImage.gif"))
        var configuration = AnimatedImagePlayer.Configuration()
        configuration.maxBufferSize = 2 * 50 * 50 * 4
        configuration.loopCount = 1
        let clock = ManualClock()
        let player = AnimatedImagePlayer(image: animation, clock: clock, configuration: configuration)
        let expected = try CodersManager.shared.decode(Corpus.data("TestImage.gif")).frames
        player.play()
        player.waitUntilIdle()
        var shown = [0]
        for _ in 0..<200 where !player.isFinished {
            clock.advance(by: .milliseconds(10))
            if player.tick(), let index = player.currentFrameIndex {
                shown.append(index)
                #expect(player.currentFrame == expected[index].pixels)
            }
            player.waitUntilIdle()
            #expect(player.bufferedFrameCount <= 2)
        }
        #expect(shown == [0, 1, 2, 3, 4])
        #expect(player.isFinished)
    }
}
