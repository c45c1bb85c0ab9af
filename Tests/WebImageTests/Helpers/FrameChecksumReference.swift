import Foundation
import Testing
@testable import WebImage

/// A reference decode of a GIF or WebP file, as make_gif_fixtures.py and
/// make_webp_fixtures.py write it into their folder's `references.json`: canvas size,
/// frame and loop counts, frame durations, declared alpha and zlib's CRC-32 of each
/// frame's RGBA bytes (see ``FixtureChecksum``).
struct FrameChecksumReference: Decodable {
    let width: Int
    let height: Int
    let frameCount: Int
    let loopCount: Int
    let durations: [Double]
    let hasAlpha: Bool
    let crc32: [UInt32]

    /// The reference for `name` in the fixtures subfolder `folder`; fails the test when absent.
    static func load(_ folder: String, _ name: String) throws -> FrameChecksumReference {
        let url = Corpus.fixtures.appendingPathComponent(folder).appendingPathComponent("references.json")
        let all = try JSONDecoder().decode([String: FrameChecksumReference].self, from: Data(contentsOf: url))
        return try #require(all[name], "no reference for \(name)")
    }

    /// Expects `image` (a full-size decode) to be exactly this reference, with `loopCount`
    /// as the loop count the coder should report.
    func expectMatches(_ image: Image, loopCount: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(image.size == ImageSize(width: width, height: height), sourceLocation: sourceLocation)
        #expect(image.frameCount == frameCount, sourceLocation: sourceLocation)
        #expect(image.loopCount == loopCount, sourceLocation: sourceLocation)
        #expect(image.hasAlpha == hasAlpha, sourceLocation: sourceLocation)
        #expect(!image.isThumbnail, sourceLocation: sourceLocation)
        for (index, duration) in durations.enumerated() where index < image.frameCount {
            #expect(abs(image.frames[index].duration - duration) < 1e-9, "frame \(index) duration", sourceLocation: sourceLocation)
        }
        #expect(image.frames.map { FixtureChecksum.crc32($0.pixels.bytes) } == crc32, sourceLocation: sourceLocation)
    }

    /// Cuts `data` (whose frames end at `frameEnds`) at each of `cuts`: each cut must give
    /// `badImageData` (only when no frame is whole) or exactly the frames lying wholly
    /// before the cut, equal to this reference's; with `checksLoopCount`, an animation
    /// that survives must keep the reference's loop count.
    func expectTruncationsGiveWholeFrames(
        of data: Data, frameEnds ends: [Int], cuts: [Int], checksLoopCount: Bool,
        sourceLocation: SourceLocation = #_sourceLocation, decode: (Data) throws -> Image
    ) throws {
        #expect(ends.count == frameCount, sourceLocation: sourceLocation)
        for cut in cuts {
            let whole = ends.filter { $0 <= cut }.count
            do {
                let image = try decode(data.prefix(cut))
                #expect(image.frameCount == whole, "cut at \(cut)", sourceLocation: sourceLocation)
                let expected = Array(crc32.prefix(image.frameCount))
                #expect(image.frames.map { FixtureChecksum.crc32($0.pixels.bytes) } == expected, "cut at \(cut)",
                        sourceLocation: sourceLocation)
                if checksLoopCount, image.frameCount > 1 {
                    #expect(image.loopCount == loopCount, "cut at \(cut)", sourceLocation: sourceLocation)
                }
            } catch let error as WebImageError {
                #expect(whole == 0, "cut at \(cut) lost \(whole) whole frames: \(error)", sourceLocation: sourceLocation)
                let isBadData = if case .badImageData = error { true } else { false }
                #expect(isBadData, "cut at \(cut): \(error)", sourceLocation: sourceLocation)
            }
        }
    }
}
