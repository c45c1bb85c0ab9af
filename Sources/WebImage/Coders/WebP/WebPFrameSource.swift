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
public final class WebPFrameSource: AnimatedImageCoder {
    public let animatedImageData: Data
    public let properties: AnimatedImageProperties
    private let decoder: SequentialFrameDecoder<Cursor>

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
        let available = options.decodeFirstFrameOnly ? 1 : handle.frameCount
        while durations.count < available {
            var iterator = WebPIterator()
            guard WebPDemuxGetFrame(demuxer, Int32(durations.count + 1), &iterator) != 0 else { break }
            durations.append(WebPCoder.frameDuration(milliseconds: Int(iterator.duration)))
            WebPDemuxReleaseIterator(&iterator)
        }
        guard !durations.isEmpty else { throw WebImageError.badImageData("WebP animation has no whole frame") }
        let orientation = WebPCoder.exifOrientation(in: demuxer) ?? .up
        let target = DecodeGeometry.targetSize(
            sourceSize: canvas, orientation: orientation, frameCount: durations.count, options: options)
        animatedImageData = data
        properties = AnimatedImageProperties(
            format: .webp, loopCount: options.decodeFirstFrameOnly ? 1 : handle.loopCount, durations: durations,
            frameSize: target, hasAlpha: features.has_alpha != 0, orientation: orientation, isThumbnail: target != canvas)
        let cursor = Cursor(handle: handle, orientation: orientation, target: target, options: options)
        decoder = SequentialFrameDecoder(cursor: cursor, frameCount: durations.count)
    }

    public func frame(at index: Int) throws -> PixelBuffer {
        try decoder.frame(at: index)
    }

    /// libwebp's animation decoder and the bytes it reads, owned together and freed together.
    private final class Handle {
        let bytes: UnsafeMutableRawBufferPointer
        let decoder: OpaquePointer
        let canvas: ImageSize
        let frameCount: Int
        let loopCount: Int

        /// `nil` when libwebp does not accept the data as a complete animation.
        init?(copying data: Data) throws {
            guard !data.isEmpty else { return nil }
            let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
            data.copyBytes(to: bytes)
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                bytes.deallocate()
                return nil
            }
            var webpData = WebPData(bytes: base, size: bytes.count)
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else {
                bytes.deallocate()
                throw WebImageError.badImageData("libwebp version mismatch")
            }
            options.color_mode = MODE_RGBA
            options.use_threads = 0
            var info = WebPAnimInfo()
            guard let decoder = WebPAnimDecoderNew(&webpData, &options) else {
                bytes.deallocate()
                return nil
            }
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0, info.frame_count > 0 else {
                WebPAnimDecoderDelete(decoder)
                bytes.deallocate()
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
            bytes.deallocate()
        }
    }

    private struct Cursor: FrameCursor {
        let handle: Handle
        let orientation: ImageOrientation
        let target: ImageSize
        let options: ImageCoderOptions
        private(set) var nextIndex = 0

        init(handle: Handle, orientation: ImageOrientation, target: ImageSize, options: ImageCoderOptions) {
            self.handle = handle
            self.orientation = orientation
            self.target = target
            self.options = options
        }

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
            return DecodeGeometry.finish(pixels, orientation: orientation, target: target, options: options)
        }
    }
}
