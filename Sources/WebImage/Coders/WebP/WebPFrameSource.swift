import CWebP
import Foundation

/// Decodes an animated WebP's frames one at a time, on demand: the lazy counterpart of
/// ``WebPCoder``'s animation path.
///
/// Opening the source reads the container (no pixel is decoded) for the frame count,
/// durations and loop count. Frames come from libwebp's animation decoder, which composites
/// each frame on the canvas the previous one left; asking for an earlier frame resets it
/// and decodes forward again (see `SequentialFrameDecoder`). A file cut short gives the
/// frames that arrived whole, as the one-shot decode does. Unlike the one-shot decode, the
/// pixel limit applies to one canvas, not all frames together. Memory: a copy of the file
/// (libwebp reads from it for the decoder's whole life), libwebp's canvas and one
/// finished frame.
///
/// Thread-safe (see ``AnimatedImageCoder``).
///
/// ```swift
/// let source = try WebPFrameSource(animatedImageData: data, options: ImageCoderOptions())
/// let frame = try source.frame(at: 5)
/// ```
public final class WebPFrameSource: SequentialFrameSource {
    let frames: SequentialFrameDecoder

    /// Whether `data` is a WebP whose header declares an animation.
    public static func canDecodeAnimation(_ data: Data) -> Bool {
        guard ImageFormat(sniffing: data) == .webp else { return false }
        return data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            var features = WebPBitstreamFeatures()
            return WebPGetFeatures(base, bytes.count, &features) == VP8_STATUS_OK && features.has_animation != 0
        }
    }

    /// Reads the animation's structure. Throws ``WebImageError/badImageData(_:)`` for data
    /// that is not an animated WebP or has no whole frame.
    public init(animatedImageData data: Data, options: ImageCoderOptions) throws {
        guard !data.isEmpty else { throw WebImageError.badImageData("empty data") }
        var features = WebPBitstreamFeatures()
        let status = data.withUnsafeBytes { bytes in
            bytes.baseAddress.map { WebPGetFeatures($0.assumingMemoryBound(to: UInt8.self), bytes.count, &features) }
        }
        guard status == VP8_STATUS_OK, ImageFormat(sniffing: data) == .webp else {
            throw WebImageError.badImageData("not a WebP (no RIFF/WEBP header)")
        }
        guard features.has_animation != 0 else { throw WebImageError.badImageData("WebP is not animated") }
        try DecodeGeometry.checkPixelLimit(width: Int(features.width), height: Int(features.height), options: options)
        // libwebp refuses an animation cut short; then the whole frames are decoded from a
        // copy that ends after them.
        guard let handle = try Handle(copying: data)
                ?? data.withUnsafeBytes({ WebPCoder.wholeFramesPrefix($0) }).flatMap({ try Handle(copying: $0) })
        else {
            throw WebImageError.badImageData("WebP animation has no whole frame")
        }
        let canvas = handle.canvas
        try DecodeGeometry.checkPixelLimit(width: canvas.width, height: canvas.height, options: options)
        guard let demuxer = WebPAnimDecoderGetDemuxer(handle.decoder) else {
            throw WebImageError.badImageData("libwebp gave no demuxer")
        }
        var durations: [TimeInterval] = []
        let available = min(handle.frameCount, options.frameLimit)
        while durations.count < available {
            var iterator = WebPIterator()
            guard WebPDemuxGetFrame(demuxer, Int32(durations.count + 1), &iterator) != 0 else { break }
            durations.append(WebPCoder.frameDuration(milliseconds: Int(iterator.duration)))
            WebPDemuxReleaseIterator(&iterator)
        }
        guard !durations.isEmpty else { throw WebImageError.badImageData("WebP animation has no whole frame") }
        let orientation = WebPCoder.fileOrientation(in: demuxer) ?? .up
        let target = DecodeGeometry.targetSize(
            sourceSize: canvas, orientation: orientation, frameCount: durations.count, options: options)
        let properties = AnimatedImageProperties(
            format: .webp, loopCount: options.decodeFirstFrameOnly ? 1 : handle.loopCount, durations: durations,
            frameSize: target, hasAlpha: features.has_alpha != 0, orientation: orientation, isThumbnail: target != canvas)
        let finish = FrameFinish(
            orientation: orientation, target: target, options: options, colorProfile: WebPCoder.iccProfile(in: demuxer))
        let cursor = Cursor(handle: handle, finish: finish)
        frames = SequentialFrameDecoder(data: data, properties: properties, cursor: cursor)
    }

    /// libwebp's animation decoder and the bytes it reads, owned together and freed together.
    private final class Handle {
        let bytes: PinnedBytes
        let decoder: OpaquePointer
        let canvas: ImageSize
        let frameCount: Int
        let loopCount: Int

        /// `nil` when libwebp does not accept the data as a complete animation.
        init?(copying data: Data) throws {
            guard !data.isEmpty else { return nil }
            let bytes = PinnedBytes(copying: data)
            guard let base = bytes.base, let made = try WebPCoder.makeAnimationDecoder(base, count: bytes.count) else {
                return nil
            }
            let (decoder, info) = made
            guard info.frame_count > 0 else {
                WebPAnimDecoderDelete(decoder)
                return nil
            }
            self.bytes = bytes
            self.decoder = decoder
            canvas = ImageSize(width: Int(info.canvas_width), height: Int(info.canvas_height))
            frameCount = Int(info.frame_count)
            loopCount = Int(info.loop_count)
        }

        deinit {
            WebPAnimDecoderDelete(decoder)
        }
    }

    private struct Cursor: FrameCursor {
        let handle: Handle
        let finish: FrameFinish
        private(set) var nextIndex = 0

        mutating func rewind() {
            WebPAnimDecoderReset(handle.decoder)
            nextIndex = 0
        }

        mutating func decodeNext() throws -> PixelBuffer {
            var canvasBytes: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(handle.decoder, &canvasBytes, &timestamp) != 0, let canvasBytes else {
                throw WebImageError.badImageData("WebP frame \(nextIndex) does not decode")
            }
            let pixels = PixelBuffer(uninitializedWidth: handle.canvas.width, height: handle.canvas.height) { buffer in
                // The decoder's canvas is exactly width × height × 4 bytes of RGBA.
                buffer.baseAddress?.update(from: canvasBytes, count: buffer.count)
            }
            nextIndex += 1
            return finish.apply(to: pixels)
        }
    }
}
