import Foundation

/// Decodes a GIF's frames one at a time, on demand: the lazy counterpart of ``GIFCoder``.
///
/// Opening the source walks the file's records once without decoding pixels, to learn the
/// whole frames, their delays and the loop count. A frame is then composited by the same
/// `GIFCompositor` the one-shot decode uses, continuing from the canvas the previous frame
/// left (see `SequentialFrameDecoder` for seeking backwards), so frame N equals the one-shot
/// decode's frame N exactly. A truncated file gives the frames that arrived whole. Unlike the
/// one-shot decode, the pixel limit applies to one canvas, not to all frames together,
/// since only one is held. Memory: the file, one canvas and one finished frame.
///
/// Thread-safe (see ``AnimatedImageCoder``).
///
/// ```swift
/// let source = try GIFFrameSource(animatedImageData: data, options: ImageCoderOptions())
/// let frame = try source.frame(at: 10)
/// ```
public final class GIFFrameSource: SequentialFrameSource {
    let frames: SequentialFrameDecoder

    /// Whether `data` starts with the `GIF8` signature (a one-frame GIF is a one-frame source).
    public static func canDecodeAnimation(_ data: Data) -> Bool {
        ImageFormat(sniffing: data) == .gif
    }

    public init(animatedImageData data: Data, options: ImageCoderOptions) throws {
        guard !data.isEmpty else { throw WebImageError.badImageData("empty data") }
        guard Self.canDecodeAnimation(data) else { throw WebImageError.badImageData("not a GIF (no GIF8 signature)") }
        let scan = try data.withUnsafeBytes { try Self.scan($0, options: options) }
        let target = DecodeGeometry.targetSize(
            sourceSize: scan.canvas, orientation: .up, frameCount: scan.durations.count, options: options)
        let properties = AnimatedImageProperties(
            format: .gif, loopCount: scan.loopCount, durations: scan.durations, frameSize: target,
            hasAlpha: scan.hasAlpha, isThumbnail: target != scan.canvas)
        let cursor = Cursor(data: data, compositor: GIFCompositor(canvasSize: scan.canvas, target: target, options: options))
        frames = SequentialFrameDecoder(data: data, properties: properties, cursor: cursor)
    }

    private struct Scan {
        var canvas: ImageSize
        var durations: [TimeInterval] = []
        var loopCount = 1
        var hasAlpha = false
    }

    /// Walks the records without decoding pixels. A read failure is a truncated or corrupt
    /// tail: the frames counted before it are the whole ones.
    private static func scan(_ bytes: UnsafeRawBufferPointer, options: ImageCoderOptions) throws -> Scan {
        try GIFCoder.withReader(bytes) { reader in
            var scan = Scan(canvas: reader.canvasSize)
            try DecodeGeometry.checkPixelLimit(width: scan.canvas.width, height: scan.canvas.height, options: options)
            var control = GIFCoder.FrameControl()
            var transparency = CanvasTransparency(width: scan.canvas.width, height: scan.canvas.height)
            scanning: while scan.durations.count < options.frameLimit {
                guard let record = try? reader.nextRecord() else { break }
                switch record {
                case .image(let image):
                    guard (try? reader.skipPixels()) != nil else { break scanning }
                    transparency.frame(image, control: control)
                    scan.hasAlpha = transparency.hasAlpha
                    scan.durations.append(control.duration)
                    control = GIFCoder.FrameControl()
                case .extension(let label, let blocks):
                    if let parsed = GIFCoder.FrameControl(label: label, blocks: blocks) { control = parsed }
                    if let count = GIFCoder.netscapeLoopCount(label: label, blocks: blocks) { scan.loopCount = count }
                case .end:
                    break scanning
                }
            }
            guard !scan.durations.isEmpty else { throw WebImageError.badImageData("GIF has no whole frame") }
            if options.decodeFirstFrameOnly { scan.loopCount = 1 }
            return scan
        }
    }

    /// The compositor plus where the next frame's records start in the file.
    private struct Cursor: FrameCursor {
        let data: Data
        var compositor: GIFCompositor
        /// `nil` before frame 0: records start after the header and global colour table.
        var offset: Int?

        var nextIndex: Int { compositor.frameIndex }

        mutating func rewind() {
            compositor.reset()
            offset = nil
        }

        mutating func decodeNext() throws -> PixelBuffer {
            let index = nextIndex
            let (pixels, position) = try data.withUnsafeBytes { bytes in
                try GIFCoder.withReader(bytes, resumingAt: offset) { reader -> (PixelBuffer, Int) in
                    let frame: ImageFrame?
                    do {
                        frame = try compositor.nextFrame(from: reader, globalPalette: reader.globalPalette)
                    } catch let failure as GIFReader.Failure {
                        throw WebImageError.badImageData("GIF frame \(index): \(failure.reason)")
                    }
                    guard let frame else { throw WebImageError.badImageData("GIF ends before frame \(index)") }
                    return (frame.pixels, reader.position)
                }
            }
            offset = position
            return pixels
        }
    }
}
