import Foundation
import Testing
@testable import WebImage

/// `ImageCoderOptions.maximumFrameCount`: every animated format's one-shot decode and frame
/// source give the first frames, exactly as a whole decode has them, with the loop count
/// kept, and count only those frames against the pixel limit.
@Suite struct FrameLimitTests {
    /// A corpus file by name, or a fixture by its path under Fixtures.
    static let animations = ["TestImage.gif", "webp/animated_lossless.webp", "png/dispose_none_over.png",
                             "avif/animated.avif", "jxl/animated.jxl"]

    static func data(_ path: String) throws -> Data {
        path.contains("/") ? try Data(contentsOf: Corpus.fixtures.appendingPathComponent(path)) : try Corpus.data(path)
    }

    @Test(arguments: animations)
    func aDecodeGivesTheFirstFramesOnly(_ path: String) throws {
        let data = try Self.data(path)
        let whole = try CodersManager.shared.decode(data)
        try #require(whole.frameCount > 2, "\(path) has \(whole.frameCount) frames")
        var options = ImageCoderOptions()
        options.maximumFrameCount = 2
        let cut = try CodersManager.shared.decode(data, options: options)
        #expect(cut.frameCount == 2)
        #expect(cut.frames == Array(whole.frames.prefix(2)))
        #expect(cut.loopCount == whole.loopCount)
        // Only the frames decoded count: two frames' pixels are enough.
        options.pixelLimit = 2 * whole.size.pixelCount
        #expect(try CodersManager.shared.decode(data, options: options).frameCount == 2)
        options.maximumFrameCount = 3
        #expect(throws: WebImageError.self) { try CodersManager.shared.decode(data, options: options) }
        // Zero and negative limits decode everything; first-frame-only wins over a limit.
        for unbounded in [0, -1] {
            var every = ImageCoderOptions()
            every.maximumFrameCount = unbounded
            #expect(try CodersManager.shared.decode(data, options: every).frameCount == whole.frameCount)
        }
        var first = ImageCoderOptions()
        first.maximumFrameCount = 2
        first.decodeFirstFrameOnly = true
        #expect(try CodersManager.shared.decode(data, options: first).frameCount == 1)
    }

    @Test(arguments: animations.filter { !$0.hasSuffix(".jxl") })
    func aFrameSourceHasTheFirstFramesOnly(_ path: String) throws {
        let data = try Self.data(path)
        let whole = try AnimatedImage(data: data)
        var options = ImageCoderOptions()
        options.maximumFrameCount = 2
        let cut = try AnimatedImage(data: data, options: options)
        #expect(cut.frameCount == 2)
        #expect(cut.loopCount == whole.loopCount)
        for index in 0..<2 {
            #expect(try cut.frame(at: index) == whole.frame(at: index), "\(path) frame \(index)")
        }
    }
}
