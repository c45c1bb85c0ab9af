import CWebP
import Foundation

/// Shows a WebP while it downloads: the rows decoded so far of a still image, the whole
/// frames so far of an animation.
///
/// Still images go through libwebp's incremental decoder (`WebPIDecoder`), each byte once,
/// scaled while decoding when a thumbnail or scale-down asks for a smaller size, as
/// ``WebPCoder`` does, in the colours of its ICC profile as the final image; rows not
/// decoded yet are transparent black. An animation shows
/// its frames that arrived whole (decoded by ``WebPCoder`` from the bytes so far) once
/// another frame completes. The EXIF orientation applies once its chunk has arrived —
/// usually at the end of the file, so partial images of a rotated WebP may show it
/// unrotated (the final image never does). For an animation, scale-down divides by the
/// frames so far. After the final update the image is ``WebPCoder``'s one-shot decode.
///
/// Thread-safe: the state is behind a lock; one instance serves one download.
///
/// ```swift
/// let decoder = WebPProgressiveDecoder()
/// decoder.update(bytesSoFar, isFinal: false)
/// let partial = try decoder.currentImage(options: ImageCoderOptions())
/// ```
public final class WebPProgressiveDecoder: CoreBackedProgressiveDecoder {
    let core = ProgressiveDecoderCore(coder: WebPCoder(), state: State.self)

    /// Creates a decoder with no bytes yet.
    public init() {}

    private struct State: PartialImageState {
        var still: StillSession?
        /// The last partial animation, the options it was made for and its whole frames.
        var animation: (options: ImageCoderOptions, frames: Int, image: Image)?

        mutating func partialImage(from data: Data, options: ImageCoderOptions) throws -> Image? {
            var features = WebPBitstreamFeatures()
            let status = data.withUnsafeBytes { bytes in
                WebPGetFeatures(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &features)
            }
            if status == VP8_STATUS_NOT_ENOUGH_DATA { return nil }
            guard status == VP8_STATUS_OK else {
                throw WebImageError.badImageData("WebP header: \(WebPCoder.describe(status))")
            }
            let source = ImageSize(width: Int(features.width), height: Int(features.height))
            try DecodeGeometry.checkPixelLimit(width: source.width, height: source.height, options: options)
            if features.has_animation != 0 { return try partialAnimation(from: data, options: options) }

            let (orientation, profile) = WebPProgressiveDecoder.chunksSoFar(data)
            let target = DecodeGeometry.targetSize(sourceSize: source, orientation: orientation, frameCount: 1, options: options)
            let stored = (options.applyOrientation ? orientation : .up).orientedSize(target)
            let decoded = WebPCoder.scaledDecodeSize(source: source, stored: stored, features: features, options: options)
            if still?.size != decoded { still = try StillSession(source: source, output: decoded) }
            guard let still, let pixels = try still.decode(data) else { return nil }
            var finished = DecodeGeometry.finish(pixels, orientation: orientation, target: target, options: options)
            // Colours as the final image has them: the ICCP chunk comes before the image data.
            let kept = ColorConversion.apply(profile, to: &finished, options: options)
            return Image(
                frames: [ImageFrame(pixels: finished)],
                format: .webp, scale: options.scaleFactor, loopCount: 1, orientation: orientation,
                hasAlpha: features.has_alpha != 0, isThumbnail: stored != source, isIncremental: true, colorProfile: kept)
        }

        /// The frames so far, decoded again only when another one has completed.
        private mutating func partialAnimation(from data: Data, options: ImageCoderOptions) throws -> Image? {
            let frames = WebPProgressiveDecoder.wholeFrames(data)
            guard frames > 0 else { return nil }
            if let animation, animation.options == options, animation.frames == frames { return animation.image }
            let image = try WebPCoder().decode(data, options: options).markedIncremental()
            animation = (options, frames, image)
            return image
        }
    }

    /// How many frames of an animation have arrived whole.
    private static func wholeFrames(_ data: Data) -> Int {
        data.withUnsafeBytes { bytes in
            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return 0 }
            var webpData = WebPData(bytes: base, size: bytes.count)
            var state = WEBP_DEMUX_PARSING_HEADER
            guard let demuxer = WebPDemuxPartial(&webpData, &state) else { return 0 }
            defer { WebPDemuxDelete(demuxer) }
            var count = 0
            var iterator = WebPIterator()
            guard WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 else { return 0 }
            defer { WebPDemuxReleaseIterator(&iterator) }
            repeat {
                guard iterator.complete != 0 else { break }
                count += 1
            } while WebPDemuxNextFrame(&iterator) != 0
            return count
        }
    }

    /// The orientation in an EXIF chunk among the bytes so far (`.up` while there is none),
    /// and the colour profile of the ICCP chunk, which comes before the image data.
    private static func chunksSoFar(_ data: Data) -> (ImageOrientation, ColorProfile?) {
        data.withUnsafeBytes { bytes in
            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return (.up, nil) }
            var webpData = WebPData(bytes: base, size: bytes.count)
            var state = WEBP_DEMUX_PARSING_HEADER
            guard let demuxer = WebPDemuxPartial(&webpData, &state) else { return (.up, nil) }
            defer { WebPDemuxDelete(demuxer) }
            return (WebPCoder.fileOrientation(in: demuxer) ?? .up, WebPCoder.iccProfile(in: demuxer))
        }
    }

    /// One libwebp incremental decoder writing into memory it does not own.
    private final class StillSession {
        /// The output size (as stored, before orientation).
        let size: ImageSize
        private let decoder: OpaquePointer
        /// libwebp keeps pointers to the configuration and to this buffer, so both live
        /// on the heap, owned here, for as long as the decoder.
        private let config: UnsafeMutablePointer<WebPDecoderConfig>
        private let output: UnsafeMutableBufferPointer<UInt8>
        private var fed = 0

        init(source: ImageSize, output size: ImageSize) throws {
            self.size = size
            config = .allocate(capacity: 1)
            output = .allocate(capacity: size.pixelCount * 4)
            output.initialize(repeating: 0)
            guard WebPInitDecoderConfig(config) != 0 else {
                config.deallocate()
                output.deallocate()
                throw WebImageError.badImageData("libwebp version mismatch")
            }
            if size != source {
                config.pointee.options.use_scaling = 1
                config.pointee.options.scaled_width = Int32(size.width)
                config.pointee.options.scaled_height = Int32(size.height)
            }
            config.pointee.output.colorspace = MODE_RGBA
            config.pointee.output.is_external_memory = 1
            config.pointee.output.u.RGBA.rgba = output.baseAddress
            config.pointee.output.u.RGBA.stride = Int32(size.width * 4)
            config.pointee.output.u.RGBA.size = output.count
            guard let decoder = WebPIDecode(nil, 0, config) else {
                config.deallocate()
                output.deallocate()
                throw WebImageError.badImageData("libwebp could not allocate an incremental decoder")
            }
            self.decoder = decoder
        }

        deinit {
            WebPIDelete(decoder)
            config.deallocate()
            output.deallocate()
        }

        /// Appends the bytes not seen yet; the rows decoded so far (the rest transparent),
        /// or `nil` while there is none.
        func decode(_ data: Data) throws -> PixelBuffer? {
            if data.count > fed {
                let status = data.withUnsafeBytes { bytes in
                    let fresh = UnsafeRawBufferPointer(rebasing: bytes[fed...])
                    return WebPIAppend(decoder, fresh.bindMemory(to: UInt8.self).baseAddress, fresh.count)
                }
                fed = data.count
                guard status == VP8_STATUS_OK || status == VP8_STATUS_SUSPENDED else {
                    throw WebImageError.badImageData("WebP: \(WebPCoder.describe(status))")
                }
            }
            var lastRow: Int32 = 0, width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
            guard WebPIDecGetRGB(decoder, &lastRow, &width, &height, &stride) != nil, lastRow > 0 else { return nil }
            guard Int(width) == size.width, Int(height) == size.height, Int(stride) == size.width * 4, lastRow <= height else {
                throw WebImageError.badImageData("libwebp produced an unexpected \(width)x\(height) output")
            }
            let decodedBytes = Int(lastRow) * size.width * 4
            return PixelBuffer(uninitializedWidth: size.width, height: size.height) { buffer in
                guard let target = buffer.baseAddress, let source = output.baseAddress else { return }
                target.update(from: source, count: decodedBytes)
                (target + decodedBytes).initialize(repeating: 0, count: buffer.count - decodedBytes)
            }
        }
    }
}
