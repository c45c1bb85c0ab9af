import Foundation

/// An ``AnimatedImageCoder`` whose every answer comes from its ``SequentialFrameDecoder``:
/// the built-in GIF, APNG, WebP and AVIF frame sources differ only in how they read the
/// file's structure and in their private cursor, so their ``AnimatedImageCoder`` members
/// are these, written once.
protocol SequentialFrameSource: AnimatedImageCoder {
    /// The file, its properties and the cursor that decodes its frames.
    var frames: SequentialFrameDecoder { get }
}

extension SequentialFrameSource {
    /// The original file, kept so a cache can store it as it came.
    public var animatedImageData: Data { frames.data }

    /// What is known about the animation without decoding it.
    public var properties: AnimatedImageProperties { frames.properties }

    /// Frame `index`, decoded forward from the nearest frame held; see
    /// ``AnimatedImageCoder/frame(at:)``.
    public func frame(at index: Int) throws -> PixelBuffer {
        try frames.frame(at: index)
    }
}
