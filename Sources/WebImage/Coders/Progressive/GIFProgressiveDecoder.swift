import Foundation

/// Shows a GIF while it downloads: the frames that have arrived whole.
///
/// A cheap walk over the block structure (no pixel is decoded) counts the image records
/// whose data is complete; when that count grows, ``GIFCoder`` decodes the bytes so far,
/// which gives exactly those frames, composited, with their durations and the loop count.
/// Nothing is shown before the first frame is whole (its rows so far are not). Each new
/// frame decodes the earlier ones again, so a download of n frames costs O(n²) frame
/// decodes if the caller asks after every frame. For an animation, scale-down divides by
/// the frames so far. After the final update the image is ``GIFCoder``'s one-shot decode.
///
/// Thread-safe: the state is behind a lock; one instance serves one download.
///
/// ```swift
/// let decoder = GIFProgressiveDecoder()
/// decoder.update(bytesSoFar, isFinal: false)
/// let partial = try decoder.currentImage(options: ImageCoderOptions())
/// ```
public final class GIFProgressiveDecoder: CoreBackedProgressiveDecoder {
    let core = ProgressiveDecoderCore(coder: GIFCoder(), state: State.self)

    /// Creates a decoder with no bytes yet.
    public init() {}

    private struct State: PartialImageState {
        /// The last partial image, the options it was made for and its whole frames.
        var partial: (options: ImageCoderOptions, frames: Int, image: Image)?

        mutating func partialImage(from data: Data, options: ImageCoderOptions) throws -> Image? {
            var frames = GIFProgressiveDecoder.wholeFrames(data)
            frames = min(frames, options.frameLimit)
            guard frames > 0 else { return nil }
            if let partial, partial.options == options, partial.frames == frames { return partial.image }
            let image = try GIFCoder().decode(data, options: options).markedIncremental()
            partial = (options, frames, image)
            return image
        }
    }

    /// Counts the image records whose data has fully arrived, walking the blocks without
    /// decoding: header, screen descriptor and global colour table, then extensions and
    /// images, each a run of length-prefixed sub-blocks. Stops at the first byte that is
    /// missing or makes no sense.
    static func wholeFrames(_ data: Data) -> Int {
        data.withUnsafeBytes { bytes in
            guard bytes.count >= 13, bytes.starts(with: Array("GIF8".utf8)) else { return 0 }
            var offset = 13
            if bytes[10] & 0x80 != 0 { offset += 3 << (Int(bytes[10] & 0x07) + 1) }
            /// The offset after the sub-blocks starting at `start`, or nil if cut short.
            func skipSubBlocks(from start: Int) -> Int? {
                var at = start
                while at < bytes.count {
                    let length = Int(bytes[at])
                    at += 1 + length
                    if length == 0 { return at }
                }
                return nil
            }
            var frames = 0
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x21:   // extension: label, then sub-blocks
                    guard let next = skipSubBlocks(from: offset + 2) else { return frames }
                    offset = next
                case 0x2C:   // image: 9 descriptor bytes, local table, LZW code size, sub-blocks
                    guard offset + 10 < bytes.count else { return frames }
                    let packed = bytes[offset + 9]
                    var at = offset + 10
                    if packed & 0x80 != 0 { at += 3 << (Int(packed & 0x07) + 1) }
                    guard let next = skipSubBlocks(from: at + 1) else { return frames }
                    frames += 1
                    offset = next
                default:     // the trailer (0x3B), or damage: nothing more to count
                    return frames
                }
            }
            return frames
        }
    }
}
