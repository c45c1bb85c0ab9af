import CWebP
import Foundation

extension WebPCoder {
    /// Decodes an animated WebP with libwebp's animation decoder, which composites every
    /// frame onto the canvas (blending and disposal as the format defines them).
    ///
    /// libwebp refuses an animation whose file is cut short, so then the whole frames are
    /// found with the partial demuxer and decoded from a copy that ends after them.
    static func decodeAnimation(_ bytes: UnsafeRawBufferPointer, hasAlpha: Bool, options: ImageCoderOptions) throws -> Image {
        if let image = try decodeCompleteAnimation(bytes, hasAlpha: hasAlpha, options: options) {
            return image
        }
        guard let whole = wholeFramesPrefix(bytes),
              let image = try whole.withUnsafeBytes({ try decodeCompleteAnimation($0, hasAlpha: hasAlpha, options: options) })
        else {
            throw WebImageError.badImageData("WebP animation has no whole frame")
        }
        return image
    }

    /// The animation, or `nil` when libwebp does not accept the file or decodes no frame.
    private static func decodeCompleteAnimation(_ bytes: UnsafeRawBufferPointer, hasAlpha: Bool,
                                                options: ImageCoderOptions) throws -> Image? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let made = try makeAnimationDecoder(base, count: bytes.count) else { return nil }
        let (decoder, info) = made
        defer { WebPAnimDecoderDelete(decoder) }

        let canvas = ImageSize(width: Int(info.canvas_width), height: Int(info.canvas_height))
        try DecodeGeometry.checkPixelLimit(width: canvas.width, height: canvas.height, options: options)
        let frameCount = min(Int(info.frame_count), options.frameLimit)
        let (total, overflow) = canvas.pixelCount.multipliedReportingOverflow(by: frameCount)
        if overflow || total > options.pixelLimit {
            throw WebImageError.imageTooLarge(width: canvas.width, height: canvas.height, limit: options.pixelLimit)
        }
        let demuxer = WebPAnimDecoderGetDemuxer(decoder)
        let orientation = demuxer.flatMap { WebPCoder.fileOrientation(in: $0) } ?? .up
        let profile = demuxer.flatMap { iccProfile(in: $0) }
        let target = DecodeGeometry.targetSize(
            sourceSize: canvas, orientation: orientation, frameCount: frameCount, options: options)

        var frames: [ImageFrame] = []
        var previousTimestamp: Int32 = 0
        while frames.count < frameCount {
            var canvasBytes: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            // A frame that fails to decode ends the animation with the frames before it.
            guard WebPAnimDecoderGetNext(decoder, &canvasBytes, &timestamp) != 0, let canvasBytes else { break }
            let pixels = PixelBuffer(uninitializedWidth: canvas.width, height: canvas.height) { buffer in
                // The decoder's canvas is exactly width × height × 4 bytes of RGBA.
                buffer.baseAddress?.update(from: canvasBytes, count: buffer.count)
            }
            frames.append(ImageFrame(
                pixels: DecodeGeometry.finish(pixels, orientation: orientation, target: target, options: options),
                duration: frameDuration(milliseconds: Int(timestamp) - Int(previousTimestamp))))
            previousTimestamp = timestamp
        }
        guard !frames.isEmpty else { return nil }
        if frames.count == 1 { frames[0].duration = 0 }
        let kept = ColorConversion.apply(profile, to: &frames, options: options)
        return Image(
            frames: frames, format: .webp, scale: options.scaleFactor, loopCount: Int(info.loop_count),
            orientation: orientation, hasAlpha: hasAlpha, isThumbnail: target != canvas, colorProfile: kept,
            metadata: demuxer.map { metadata(in: $0, options: options) } ?? ImageMetadata())
    }

    /// libwebp's animation decoder over the `count` bytes at `base`, giving RGBA on the
    /// calling thread, and the animation's canvas, frame count and loop count; `nil` when
    /// libwebp does not accept the bytes as a complete animation. The one-shot decode and
    /// ``WebPFrameSource`` both start here. The bytes must outlive the decoder, which the
    /// caller deletes with `WebPAnimDecoderDelete`.
    static func makeAnimationDecoder(
        _ base: UnsafePointer<UInt8>,
        count: Int
    ) throws -> (decoder: OpaquePointer, info: WebPAnimInfo)? {
        var data = WebPData(bytes: base, size: count)
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw WebImageError.badImageData("libwebp version mismatch")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        guard let decoder = WebPAnimDecoderNew(&data, &options) else { return nil }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
            WebPAnimDecoderDelete(decoder)
            return nil
        }
        return (decoder, info)
    }

    /// SDWebImage's (and browsers') rule: a frame duration of 10 ms or less is shown for
    /// 100 ms, since such files mean "as fast as possible" and would otherwise flicker.
    static func frameDuration(milliseconds: Int) -> TimeInterval {
        milliseconds <= 10 ? 0.1 : Double(milliseconds) / 1000
    }

    /// A copy of the file that ends after its last whole frame, with the RIFF size made to
    /// match, or `nil` when not even the first frame is whole.
    static func wholeFramesPrefix(_ bytes: UnsafeRawBufferPointer) -> Data? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var data = WebPData(bytes: base, size: bytes.count)
        var state = WEBP_DEMUX_PARSING_HEADER
        guard let demuxer = WebPDemuxPartial(&data, &state) else { return nil }
        defer { WebPDemuxDelete(demuxer) }
        let count = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        var end = 0
        var number = 1
        while number <= count {
            var iterator = WebPIterator()
            guard WebPDemuxGetFrame(demuxer, Int32(number), &iterator) != 0 else { break }
            defer { WebPDemuxReleaseIterator(&iterator) }
            guard iterator.complete != 0, let fragment = iterator.fragment.bytes else { break }
            let fragmentEnd = UnsafeRawPointer(fragment) - UnsafeRawPointer(base) + iterator.fragment.size
            guard fragmentEnd <= bytes.count else { break }
            end = fragmentEnd
            number += 1
        }
        guard end > 12 else { return nil }
        // Chunks are padded to an even length; keep the pad byte when it arrived.
        var prefix = Data(bytes.prefix(min(end + end % 2, bytes.count)))
        let riffSize = UInt32(prefix.count - 8)
        for index in 0..<4 { prefix[4 + index] = UInt8(truncatingIfNeeded: riffSize >> (8 * UInt32(index))) }
        return prefix
    }
}
