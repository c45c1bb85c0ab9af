import CJPEG
import Foundation

/// Shows a JPEG while it downloads: each scan of a progressive file as it arrives, the
/// rows so far of a baseline one.
///
/// libjpeg reads the bytes through a data source that suspends where they run out, so each
/// ``ProgressiveImageCoder/currentImage(options:)`` decodes only what arrived since the
/// last one.
/// Progressive (and other multi-scan) files use libjpeg's buffered-image mode: every
/// output pass shows the newest scan that has begun, down to where its data ends, and the
/// rows below keep the previous pass. Rows no pass has reached yet are mid-grey (128), as
/// libjpeg fills missing data. Partial images have the final size: the DCT-domain scale
/// and the resize and orientation follow ``JPEGCoder``'s plan for the same options. A
/// file of more than 500 scans fails, as in ``JPEGCoder``. After the final update the
/// image is ``JPEGCoder``'s one-shot decode.
///
/// Thread-safe: the state is behind a lock; one instance serves one download.
///
/// ```swift
/// let decoder = JPEGProgressiveDecoder()
/// decoder.update(bytesSoFar, isFinal: false)
/// let partial = try decoder.currentImage(options: ImageCoderOptions())
/// ```
public final class JPEGProgressiveDecoder: CoreBackedProgressiveDecoder {
    let core = ProgressiveDecoderCore(coder: JPEGCoder(), state: State.self)

    /// Creates a decoder with no bytes yet.
    public init() {}

    private struct State: PartialImageState {
        var session: Session?
        /// The last plan made, for the options it was made with: the header does not change.
        var plan: (options: ImageCoderOptions, plan: JPEGCoder.DecodePlan)?

        mutating func partialImage(from data: Data, options: ImageCoderOptions) throws -> Image? {
            guard !data.isEmpty else { return nil }
            if session == nil { session = try Session() }
            guard let current = session, try current.readHeader(data) else { return nil }
            let plan: JPEGCoder.DecodePlan
            if let cached = self.plan, cached.options == options {
                plan = cached.plan
            } else {
                plan = try JPEGCoder().plan(for: data, options: options)
                self.plan = (options, plan)
            }
            // The DCT scale is fixed once decompression starts; other options start over.
            if let started = current.plan, started.scaleNumerator != plan.scaleNumerator || started.isCMYK != plan.isCMYK {
                session = nil
                return try partialImage(from: data, options: options)
            }
            guard let pixels = try current.decode(data, plan: plan, options: options) else { return nil }
            var finished = DecodeGeometry.finish(pixels, orientation: plan.orientation, target: plan.target, options: options)
            // Colours as the one-shot decode gives them (CMYK went through its profile already).
            let kept = plan.isCMYK ? nil : ColorConversion.apply(plan.colorProfile, to: &finished, options: options)
            return Image(
                frames: [ImageFrame(pixels: finished)], format: .jpeg, scale: options.scaleFactor, loopCount: 1,
                orientation: plan.orientation, hasAlpha: false, isThumbnail: plan.isThumbnail, isIncremental: true,
                colorProfile: kept)
        }
    }

    /// One libjpeg stream decoder and the picture it has drawn so far.
    private final class Session {
        private let stream: OpaquePointer
        /// The plan decompression started with, once it has.
        private(set) var plan: JPEGCoder.DecodePlan?
        private var width = 0
        private var height = 0
        /// libjpeg's output rows (RGBA, or CMYK converted to RGBA row band by band).
        private var pixels: [UInt8] = []
        private var hasRows = false

        init() throws {
            guard let stream = cjpeg_stream_new() else {
                throw WebImageError.badImageData("libjpeg could not allocate a decoder")
            }
            self.stream = stream
        }

        deinit { cjpeg_reader_free(stream) }

        /// Whether the whole header has arrived.
        func readHeader(_ data: Data) throws -> Bool {
            var header = cjpeg_header()
            let result = data.withUnsafeBytes { raw in
                cjpeg_stream_read_header(stream, raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &header)
            }
            guard result >= 0 else { throw JPEGCoder.failure(stream) }
            return result == 1
        }

        /// Decodes what arrived since the last call; the picture so far at libjpeg's
        /// output size, or `nil` while no row has been decoded. `options` are those the
        /// plan was made with (the default CMYK profile, when the embedded one is unusable).
        func decode(_ data: Data, plan: JPEGCoder.DecodePlan, options: ImageCoderOptions) throws -> PixelBuffer? {
            if self.plan == nil {
                guard try start(data, plan: plan) else { return nil }
            }
            let rowBytes = width * 4
            var result: Int32 = 1
            while result == 1 {
                var first: UInt32 = 0, count: UInt32 = 0
                result = data.withUnsafeBytes { raw in
                    pixels.withUnsafeMutableBufferPointer { out in
                        cjpeg_stream_read_rows(
                            stream, raw.bindMemory(to: UInt8.self).baseAddress, raw.count,
                            out.baseAddress, rowBytes, &first, &count)
                    }
                }
                guard result >= 0 else { throw JPEGCoder.failure(stream) }
                let top = Int(first), rows = Int(count)
                guard rows > 0 else { continue }
                guard top + rows <= height else { throw WebImageError.badImageData("libjpeg wrote past the last row") }
                hasRows = true
                if plan.isCMYK {
                    let transform = ColorConversion.cmykTransform(plan.colorProfile, inverted: plan.isInvertedCMYK, options: options)
                    pixels.withUnsafeMutableBufferPointer { out in
                        let band = UnsafeMutableBufferPointer(rebasing: out[top * rowBytes..<(top + rows) * rowBytes])
                        if let transform {
                            transform.convert(band)
                        } else {
                            ColorConversion.convertNaiveCMYK(band, inverted: plan.isInvertedCMYK)
                        }
                    }
                }
            }
            guard hasRows else { return nil }
            return try PixelBuffer(width: width, height: height, bytes: pixels)
        }

        /// Starts decompression at the plan's scale. The plan has checked the pixel limit.
        private func start(_ data: Data, plan: JPEGCoder.DecodePlan) throws -> Bool {
            var outWidth: UInt32 = 0, outHeight: UInt32 = 0
            var components: Int32 = 0
            let space = plan.isCMYK ? JCS_CMYK : JCS_EXT_RGBA
            let result = data.withUnsafeBytes { raw in
                cjpeg_stream_start(
                    stream, raw.bindMemory(to: UInt8.self).baseAddress, raw.count, space,
                    UInt32(plan.scaleNumerator), &outWidth, &outHeight, &components)
            }
            guard result >= 0 else { throw JPEGCoder.failure(stream) }
            guard result == 1 else { return false }
            let size = ImageSize(width: Int(outWidth), height: Int(outHeight))
            guard components == 4, size == plan.scaledSize else {
                throw WebImageError.badImageData("libjpeg produced an unexpected \(size) output of \(components) components")
            }
            width = size.width
            height = size.height
            // Mid-grey, opaque: what libjpeg itself shows for data that never arrived.
            pixels = [UInt8](repeating: 128, count: size.pixelCount * 4)
            for alpha in stride(from: 3, to: pixels.count, by: 4) { pixels[alpha] = 255 }
            self.plan = plan
            return true
        }
    }
}
