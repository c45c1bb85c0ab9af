import Foundation

/// The facts about an animation that are known before any frame is decoded.
///
/// An ``AnimatedImageCoder`` reads them from the file's structure; ``AnimatedImage`` and
/// ``AnimatedImagePlayer`` use them to plan playback and memory. A value; Sendable.
///
/// ```swift
/// let p = source.properties
/// print(p.frameCount, p.durations.reduce(0, +), p.frameSize)
/// ```
public struct AnimatedImageProperties: Sendable, Equatable {
    /// The format the frames come from.
    public var format: ImageFormat
    /// How many frames can be decoded; at least 1.
    public var frameCount: Int { durations.count }
    /// How many times the animation plays; 0 means forever, 1 for a single frame.
    public var loopCount: Int
    /// Each frame's display time in seconds (0 for a single frame).
    public var durations: [TimeInterval]
    /// The size of every decoded frame, after thumbnail, scale-down and orientation.
    public var frameSize: ImageSize
    /// Whether the source declares transparency.
    public var hasAlpha: Bool
    /// The EXIF orientation found in the file (already applied when the options asked).
    public var orientation: ImageOrientation
    /// Whether the frames are decoded smaller than the source.
    public var isThumbnail: Bool

    /// Creates the properties. `durations` must not be empty.
    public init(format: ImageFormat, loopCount: Int, durations: [TimeInterval], frameSize: ImageSize,
                hasAlpha: Bool, orientation: ImageOrientation = .up, isThumbnail: Bool = false) {
        precondition(!durations.isEmpty, "an animation has at least one frame")
        self.format = format
        self.loopCount = durations.count > 1 ? max(0, loopCount) : 1
        self.durations = durations.count > 1 ? durations : [0]
        self.frameSize = frameSize
        self.hasAlpha = hasAlpha
        self.orientation = orientation
        self.isThumbnail = isThumbnail
    }

    /// Bytes of one decoded frame (RGBA).
    public var bytesPerFrame: Int { frameSize.pixelCount * 4 }
    /// Sum of the durations, in seconds.
    public var totalDuration: TimeInterval { durations.reduce(0, +) }
}
