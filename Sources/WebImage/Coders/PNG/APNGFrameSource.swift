import Foundation

/// Decodes an animated PNG's frames one at a time, on demand: the lazy counterpart of
/// ``PNGCoder``'s APNG path.
///
/// Opening the source walks the chunks (no pixel is decoded) to find the frames, their
/// delays and the play count (0 = forever). Frames are composited by the same
/// `APNGCompositor` the one-shot decode uses, forward from the canvas the previous frame
/// left (see `SequentialFrameDecoder` for seeking backwards), so frame N equals the
/// one-shot decode's frame N exactly. Unlike the one-shot decode, a file cut short gives
/// the frames before the cut (the frame being cut is dropped, as is the last frame of a
/// file missing only its IEND, since its data cannot be known complete), and the pixel
/// limit applies to one canvas. `decodeFirstFrameOnly` gives the animation's first frame.
/// Memory: the file, one canvas and one finished frame.
///
/// Thread-safe (see ``AnimatedImageCoder``).
///
/// ```swift
/// let source = try APNGFrameSource(animatedImageData: data, options: ImageCoderOptions())
/// let frame = try source.frame(at: 3)
/// ```
public final class APNGFrameSource: SequentialFrameSource {
    let frames: SequentialFrameDecoder

    /// Whether `data` is a PNG with an `acTL` chunk before its image data.
    public static func canDecodeAnimation(_ data: Data) -> Bool {
        guard ImageFormat(sniffing: data) == .png else { return false }
        return data.withUnsafeBytes { bytes in
            guard let layout = try? PNGChunks.scan(bytes) else { return false }
            for chunk in layout.chunks {
                if chunk.type == PNGChunks.IDAT { return false }
                if chunk.type == PNGChunks.acTL { return true }
            }
            return false
        }
    }

    /// Reads the animation's structure. Throws ``WebImageError/badImageData(_:)`` for a PNG
    /// without an animation or with inconsistent APNG chunks.
    public init(animatedImageData data: Data, options: ImageCoderOptions) throws {
        guard !data.isEmpty else { throw WebImageError.badImageData("empty data") }
        let coder = PNGCoder()
        let (animation, header, orientation, hasAlpha, profile) = try data.withUnsafeBytes { bytes in
            let layout = try PNGChunks.scan(bytes)
            let header = try PNGDecoder.header(of: layout, in: bytes)
            try DecodeGeometry.checkPixelLimit(width: header.width, height: header.height, options: options)
            guard var animation = try APNGDecoder.animation(in: layout, bytes: bytes, header: header, options: options, lazy: true) else {
                throw WebImageError.badImageData("PNG has no animation (no acTL chunk before the image data)")
            }
            animation.frames.removeLast(max(0, animation.frames.count - options.frameLimit))
            let orientation = coder.orientation(in: layout, bytes: bytes)
            let canvas = ImageSize(width: header.width, height: header.height)
            let hasAlpha = header.hasAlphaChannel || coder.hasTransparencyChunk(in: layout) || animation.leavesClearPixels(canvas: canvas)
            return (animation, header, orientation, hasAlpha, PNGDecoder.colorProfile(bytes))
        }
        let source = ImageSize(width: header.width, height: header.height)
        let target = DecodeGeometry.targetSize(
            sourceSize: source, orientation: orientation, frameCount: animation.frames.count, options: options)
        let properties = AnimatedImageProperties(
            format: .png, loopCount: options.decodeFirstFrameOnly ? 1 : animation.playCount,
            durations: animation.frames.map(\.control.duration), frameSize: target, hasAlpha: hasAlpha,
            orientation: orientation, isThumbnail: target.pixelCount < source.pixelCount)
        var compositor = APNGCompositor(
            animation: animation, header: header, orientation: orientation, target: target, options: options)
        compositor.colorProfile = profile
        frames = SequentialFrameDecoder(data: data, properties: properties, cursor: Cursor(data: data, compositor: compositor))
    }

    private struct Cursor: FrameCursor {
        let data: Data
        var compositor: APNGCompositor

        var nextIndex: Int { compositor.nextIndex }

        mutating func rewind() {
            compositor.reset()
        }

        mutating func decodeNext() throws -> PixelBuffer {
            try data.withUnsafeBytes { try compositor.nextFrame(bytes: $0).pixels }
        }
    }
}
