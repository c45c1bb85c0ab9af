import Foundation

/// A decoder that hands out the frames of one animated file one at a time, on demand.
///
/// Where an ``ImageCoder`` turns a whole file into every frame at once, an animated image
/// coder is made for one file and decodes frame N only when asked, so an animation plays
/// with a few frames in memory instead of all of them (SDWebImage's `SDAnimatedImageCoder`).
/// ``AnimatedImage`` wraps one, and ``AnimatedImagePlayer`` asks it for frames ahead of time.
/// Implementations must be thread-safe: the player's prefetch and its owner may ask for
/// frames at the same time.
///
/// ```swift
/// let source = try GIFFrameSource(animatedImageData: data, options: ImageCoderOptions())
/// let third = try source.frame(at: 2)
/// print(source.frameCount, source.loopCount, source.duration(at: 2))
/// ```
public protocol AnimatedImageCoder: AnyObject, Sendable {
    /// Whether `data` is a file this coder decodes lazily (a cheap header check).
    static func canDecodeAnimation(_ data: Data) -> Bool

    /// Reads the file's structure (frame count, durations, loop count) without decoding
    /// pixels beyond what is needed to check it. `decodeFirstFrameOnly` makes a one-frame
    /// source; thumbnail and scale-down options apply to every frame. Throws
    /// ``WebImageError`` for data that is not of this format, has no whole frame, or exceeds
    /// the pixel limit.
    init(animatedImageData data: Data, options: ImageCoderOptions) throws

    /// The original file, kept so a cache can store it as it came.
    var animatedImageData: Data { get }
    /// What is known about the animation without decoding it.
    var properties: AnimatedImageProperties { get }

    /// Frame `index` (0-based, below ``frameCount``), composited on the full canvas at
    /// ``AnimatedImageProperties/frameSize``. Throws ``WebImageError/badImageData(_:)`` when
    /// that frame's data is corrupt; never traps on malformed input.
    func frame(at index: Int) throws -> PixelBuffer
}

extension AnimatedImageCoder {
    /// Number of frames that can be decoded (the whole ones, for a truncated file).
    public var frameCount: Int { properties.frameCount }
    /// How many times the animation plays; 0 means forever.
    public var loopCount: Int { properties.loopCount }

    /// How long frame `index` stays on screen, in seconds; 0 for an index out of range.
    public func duration(at index: Int) -> TimeInterval {
        properties.durations.indices.contains(index) ? properties.durations[index] : 0
    }
}
