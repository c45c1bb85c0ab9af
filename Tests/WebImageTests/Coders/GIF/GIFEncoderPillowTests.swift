import Foundation
import Testing
@testable import WebImage

/// Our GIFs as Pillow reads them (Fixtures/gifenc, made by make_gifenc_fixtures.py):
/// a 4-frame animation with a hole, a moving square and a fully transparent last frame,
/// encoded by our tool and decoded by Pillow 13.
@Suite struct GIFEncoderPillowTests {
    struct Reference: Decodable {
        let frames: Int
        let durations_ms: [Int]
        let loop: Int
        let width: Int
        let height: Int
    }

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("gifenc/\(name)"))
    }

    /// Pillow's composited frames of synthetic.gif.
    static func pillowFrames(_ reference: Reference) throws -> [PixelBuffer] {
        let bytes = [UInt8](try fixture("pillow.rgba"))
        let frameBytes = reference.width * reference.height * 4
        try #require(bytes.count == frameBytes * reference.frames)
        return try (0..<reference.frames).map {
            try PixelBuffer(width: reference.width, height: reference.height,
                            bytes: Array(bytes[$0 * frameBytes..<($0 + 1) * frameBytes]))
        }
    }

    @Test func ourDecoderAndPillowAgreeOnAGIFWeWrote() throws {
        let reference = try JSONDecoder().decode(Reference.self, from: Self.fixture("pillow.json"))
        let image = try GIFCoder().decode(Self.fixture("synthetic.gif"), options: ImageCoderOptions())
        #expect(image.frameCount == reference.frames)
        #expect(image.loopCount == reference.loop)
        #expect(image.frames.map { Int(($0.duration * 1000).rounded()) } == reference.durations_ms)
        #expect(image.frames.map(\.pixels) == (try Self.pillowFrames(reference)))
    }

    @Test func todaysEncoderStillWritesWhatPillowRead() throws {
        let reference = try JSONDecoder().decode(Reference.self, from: Self.fixture("pillow.json"))
        let source = try PNGCoder().decode(Self.fixture("synthetic.png"), options: ImageCoderOptions())
        let data = try GIFCoder().encode(source, as: .gif, options: ImageCoderOptions())
        let image = try GIFCoder().decode(data, options: ImageCoderOptions())
        #expect(image.loopCount == reference.loop)
        #expect(image.frames.map(\.pixels) == (try Self.pillowFrames(reference)))
    }
}
