import Foundation
@testable import WebImage

/// Feeds a progressive decoder the way a download does — every byte so far after each
/// chunk — and collects the partial images it shows along the way.
enum ProgressiveFeeder {
    /// Chunk lengths of `size` bytes covering `total` bytes.
    static func fixedChunks(total: Int, size: Int) -> [Int] {
        stride(from: 0, to: total, by: size).map { min(size, total - $0) }
    }

    /// Chunk lengths between 1 and `maxSize` drawn from a SplitMix64 generator at `seed`.
    static func randomChunks(total: Int, seed: UInt64, maxSize: Int) -> [Int] {
        var state = seed
        var chunks: [Int] = []
        var covered = 0
        while covered < total {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            let length = min(total - covered, 1 + Int((z ^ (z >> 31)) % UInt64(maxSize)))
            chunks.append(length)
            covered += length
        }
        return chunks
    }

    /// Feeds `data` in `chunks` without the final flag, asking for the current image after
    /// a chunk whenever at least `askEvery` bytes arrived since the last ask. Returns the
    /// partial images seen (nil answers are dropped).
    static func feed(
        _ decoder: any ProgressiveImageCoder,
        _ data: Data,
        chunks: [Int],
        askEvery: Int,
        options: ImageCoderOptions = ImageCoderOptions()
    ) throws -> [Image] {
        var partials: [Image] = []
        var end = 0
        var lastAsk = 0
        for length in chunks {
            end += length
            decoder.update(data.prefix(end), isFinal: false)
            if end - lastAsk >= askEvery {
                lastAsk = end
                if let image = try decoder.currentImage(options: options) { partials.append(image) }
            }
        }
        return partials
    }

    /// Mean absolute difference per channel between two buffers of the same size.
    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.size == b.size)
        var total = 0
        for i in a.bytes.indices { total += abs(Int(a.bytes[i]) - Int(b.bytes[i])) }
        return Double(total) / Double(a.bytes.count)
    }

    /// Whether every row of `partial` either equals that row of `final` or is entirely
    /// `fill`, and from the first row that differs from `final` on, all rows are `fill`.
    static func rowsAreFinalThenFill(_ partial: PixelBuffer, final: PixelBuffer, fill: RGBAColor) -> Bool {
        let rowBytes = partial.bytesPerRow
        var missing = false
        for y in 0..<partial.height {
            let isFinal = partial.bytes[y * rowBytes..<(y + 1) * rowBytes] == final.bytes[y * rowBytes..<(y + 1) * rowBytes]
            let isFill = (0..<partial.width).allSatisfy { partial[pixel: $0, y] == fill }
            if !isFinal && !isFill { return false }
            if missing && !isFill { return false }
            if !isFinal { missing = true }
        }
        return true
    }
}
