import Foundation
import Testing
@testable import WebImage

/// The expectations the corrupt-input tests of several coders share: what a decoder may
/// give back for damaged bytes. Each takes the decode to run, so one check serves every
/// coder; errors other than ``WebImageError`` are rethrown and fail the test.
enum CorruptInputChecks {
    /// Every prefix must fail with `badImageData` (for formats that give no partial image).
    static func expectPrefixesAreBadImageData(
        _ prefixes: [Data], sourceLocation: SourceLocation = #_sourceLocation, _ decode: (Data) throws -> Image
    ) throws {
        for data in prefixes {
            do {
                _ = try decode(data)
                Issue.record("a \(data.count)-byte prefix decoded", sourceLocation: sourceLocation)
            } catch let error as WebImageError {
                guard case .badImageData = error else { Issue.record("unexpected \(error)", sourceLocation: sourceLocation); continue }
            }
        }
    }

    /// Every input must give a ``WebImageError`` or an image whose pixel bytes match its size.
    static func expectErrorOrWholeImage(
        decoding inputs: [Data], sourceLocation: SourceLocation = #_sourceLocation, _ decode: (Data) throws -> Image
    ) throws {
        for data in inputs {
            do {
                let image = try decode(data)
                #expect(image.pixels.bytes.count == image.size.pixelCount * 4, sourceLocation: sourceLocation)
            } catch is WebImageError {
                continue
            }
        }
    }

    /// Every input must give a ``WebImageError`` or frames that all have the canvas size and
    /// together stay within `pixelLimit`; both outcomes must occur at least once.
    static func expectErrorOrSaneFrames(
        decoding inputs: [Data], pixelLimit: Int, sourceLocation: SourceLocation = #_sourceLocation,
        _ decode: (Data) throws -> Image
    ) throws {
        var decoded = 0, refused = 0
        for data in inputs {
            do {
                let image = try decode(data)
                decoded += 1
                #expect(image.frames.allSatisfy { $0.pixels.size == image.size && $0.pixels.bytes.count == image.size.pixelCount * 4 },
                        sourceLocation: sourceLocation)
                #expect(image.frameCount * image.size.pixelCount <= pixelLimit, sourceLocation: sourceLocation)
            } catch is WebImageError {
                refused += 1
            }
        }
        #expect(decoded > 0, sourceLocation: sourceLocation)
        #expect(refused > 0, sourceLocation: sourceLocation)
    }

    /// A header claiming 60000x60000 must be refused with `imageTooLarge` under the default
    /// pixel limit, promptly (``TestTime/prompt``: from the header, before any pixel work,
    /// which for 3.6 gigapixels would take tens of seconds).
    static func expectRefuses60000SquareQuickly(
        _ data: Data, sourceLocation: SourceLocation = #_sourceLocation, _ decode: (Data) throws -> Image
    ) {
        let start = ContinuousClock.now
        #expect(throws: WebImageError.imageTooLarge(width: 60000, height: 60000, limit: ImageCoderOptions().pixelLimit),
                sourceLocation: sourceLocation) {
            try decode(data)
        }
        #expect(ContinuousClock.now - start < TestTime.prompt, sourceLocation: sourceLocation)
    }
}
