import Foundation

/// One frame of an image: its pixels and how long it stays on screen.
///
/// A still image has one frame with a duration of 0.
///
/// ```swift
/// for frame in image.frames { print(frame.pixels.size, frame.duration) }
/// ```
public struct ImageFrame: Sendable, Equatable {
    /// The frame's pixels, composited onto the full canvas.
    public var pixels: PixelBuffer
    /// Display time in seconds; 0 for still images.
    public var duration: TimeInterval

    /// Creates a frame.
    public init(pixels: PixelBuffer, duration: TimeInterval = 0) {
        self.pixels = pixels
        self.duration = duration
    }
}
