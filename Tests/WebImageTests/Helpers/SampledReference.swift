import Foundation
@testable import WebImage

/// Pixels an independent decoder (Pillow, pillow_heif) produced for a test image, kept
/// compact as a grid of sample points: columns `xs` by rows `ys`, RGBA row-major.
///
/// Written by the `make_references.py` scripts beside the fixtures; the tests compare a
/// coder's output at the same points.
struct SampledReference: Decodable {
    let width: Int
    let height: Int
    let xs: [Int]
    let ys: [Int]
    let rgba: [Int]
    var orientation: Int?
    var frames: Int?
    var bitDepth: Int?
    var durations: [Int]?
    var frameSamples: [SampledReference]?

    /// The references in a fixtures subfolder's `references.json`, by file name.
    static func load(_ folder: String) throws -> [String: SampledReference] {
        let url = Corpus.fixtures.appendingPathComponent(folder).appendingPathComponent("references.json")
        return try JSONDecoder().decode([String: SampledReference].self, from: Data(contentsOf: url))
    }

    /// Mean and largest absolute difference over every channel of every sample point.
    func difference(to pixels: PixelBuffer) -> (mean: Double, max: Int) {
        var total = 0, largest = 0, index = 0
        for y in ys {
            for x in xs {
                let p = pixels[pixel: x, y]
                for (channel, value) in [p.red, p.green, p.blue, p.alpha].enumerated() {
                    let diff = abs(Int(value) - rgba[index + channel])
                    total += diff
                    largest = max(largest, diff)
                }
                index += 4
            }
        }
        return (Double(total) / Double(max(1, rgba.count)), largest)
    }
}
