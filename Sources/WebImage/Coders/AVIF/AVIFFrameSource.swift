import CAVIF
import Foundation

/// Decodes the frames of an AVIF image sequence one at a time, on demand: the lazy
/// counterpart of ``AVIFCoder``.
///
/// Opening the source parses the container (no frame is decoded) for the frame count and
/// durations. AV1 frames are not composited but predicted from earlier ones, so a frame is
/// decoded with libavif's `avifDecoderNthImage`, which continues from the current frame or
/// restarts at the nearest keyframe before the one asked for. A file cut short gives the
/// frames whose data (and their keyframe's) is all present. A still AVIF is a one-frame
/// source. Sequences report `loopCount` 0, as ``AVIFCoder`` does (libavif 0.11 does not
/// expose the edit list's repetition count). Memory: a copy of the file (libavif reads
/// from it for the decoder's whole life), the AV1 decoder's reference frames and one
/// finished frame.
///
/// Thread-safe (see ``AnimatedImageCoder``).
///
/// ```swift
/// let source = try AVIFFrameSource(animatedImageData: data, options: ImageCoderOptions())
/// let frame = try source.frame(at: 1)
/// ```
public final class AVIFFrameSource: SequentialFrameSource {
    let frames: SequentialFrameDecoder

    /// Whether ``AVIFCoder`` accepts `data` (stills and sequences alike).
    public static func canDecodeAnimation(_ data: Data) -> Bool {
        AVIFCoder().canDecode(data)
    }

    /// Parses the container. Throws ``WebImageError/badImageData(_:)`` for data libavif
    /// cannot parse and ``WebImageError/imageTooLarge(width:height:limit:)`` above the limit.
    public init(animatedImageData data: Data, options: ImageCoderOptions) throws {
        guard !data.isEmpty else { throw WebImageError.badImageData("empty AVIF data") }
        let handle = try Handle(copying: data, options: options)
        let decoder = handle.decoder
        guard let parsed = decoder.pointee.image else { throw WebImageError.badImageData("AVIF has no image") }
        let source = ImageSize(width: Int(parsed.pointee.width), height: Int(parsed.pointee.height))
        try DecodeGeometry.checkPixelLimit(width: source.width, height: source.height, options: options)
        let declared = min(Int(decoder.pointee.imageCount), options.frameLimit)
        var durations: [TimeInterval] = []
        // Frames whose data (back to their keyframe) lies within the bytes present.
        while durations.count < declared {
            var extent = avifExtent()
            var timing = avifImageTiming()
            let index = UInt32(durations.count)
            guard avifDecoderNthImageMaxExtent(decoder, index, &extent) == AVIF_RESULT_OK,
                  extent.offset <= UInt64(data.count), UInt64(extent.size) <= UInt64(data.count) - extent.offset,
                  avifDecoderNthImageTiming(decoder, index, &timing) == AVIF_RESULT_OK
            else { break }
            durations.append(timing.duration)
        }
        guard !durations.isEmpty else { throw WebImageError.badImageData("AVIF has no whole frame") }
        let orientation = AVIFCoder.orientation(of: parsed.pointee)
        let target = DecodeGeometry.targetSize(
            sourceSize: source, orientation: orientation, frameCount: durations.count, options: options)
        let upright = (options.applyOrientation ? orientation : .up).orientedSize(source)
        let properties = AnimatedImageProperties(
            format: .avif, loopCount: 0, durations: durations, frameSize: target,
            hasAlpha: decoder.pointee.alphaPresent == AVIF_TRUE, orientation: orientation,
            isThumbnail: target.pixelCount < upright.pixelCount)
        let finish = FrameFinish(
            orientation: orientation, target: target, options: options, colorProfile: AVIFCoder.colorProfile(of: parsed.pointee))
        let cursor = Cursor(handle: handle, source: source, finish: finish)
        frames = SequentialFrameDecoder(data: data, properties: properties, cursor: cursor)
    }

    /// A parsed libavif decoder and the bytes it reads, owned together and freed together.
    private final class Handle {
        let bytes: PinnedBytes
        let decoder: UnsafeMutablePointer<avifDecoder>

        init(copying data: Data, options: ImageCoderOptions) throws {
            guard let decoder = avifDecoderCreate() else { throw WebImageError.badImageData("libavif could not create a decoder") }
            let bytes = PinnedBytes(copying: data)
            self.bytes = bytes
            self.decoder = decoder
            // From here on, deinit frees both whatever fails below.
            try AVIFCoder().parse(UnsafeRawBufferPointer(bytes.buffer), with: decoder, options: options, readsMetadata: false)
        }

        deinit {
            avifDecoderDestroy(decoder)
        }
    }

    private struct Cursor: FrameCursor {
        let handle: Handle
        let source: ImageSize
        let finish: FrameFinish
        private(set) var nextIndex = 0

        mutating func rewind() {
            nextIndex = 0
        }

        /// libavif finds the keyframe itself, so any frame can be the next one decoded.
        mutating func jump(to index: Int) -> Bool {
            nextIndex = index
            return true
        }

        mutating func decodeNext() throws -> PixelBuffer {
            let decoder = handle.decoder
            try AVIFCoder().check(avifDecoderNthImage(decoder, UInt32(nextIndex)), decoder, "decoding frame \(nextIndex)")
            guard let decoded = decoder.pointee.image,
                  Int(decoded.pointee.width) == source.width, Int(decoded.pointee.height) == source.height else {
                throw WebImageError.badImageData("AVIF frame \(nextIndex) does not match the container's size")
            }
            let pixels = try AVIFCoder.rgba(from: decoded, width: source.width, height: source.height)
            nextIndex += 1
            return finish.apply(to: pixels)
        }
    }
}
