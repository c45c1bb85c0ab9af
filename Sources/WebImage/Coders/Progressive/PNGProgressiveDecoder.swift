import CPNG
import Foundation

/// Shows a PNG while it downloads: the rows decoded so far, and for an interlaced (Adam7)
/// file the passes so far, combined.
///
/// The bytes go to libpng's progressive reader (`png_process_data`) as they arrive, each
/// byte once, and rows are drawn into a canvas as they decode. Interlaced passes are
/// combined the blocky way browsers show them: each pass's pixels fill their Adam7 block
/// until a later pass refines it. What no row has reached is transparent black. The
/// header's size is checked against the pixel limit before libpng allocates anything.
/// The `eXIf` orientation (from the chunks so far) and the thumbnail and scale-down
/// options apply as in ``PNGCoder``; for an APNG the partial image is the default (IDAT)
/// image, sized for the frame count `acTL` declares. After the final update the image is
/// ``PNGCoder``'s one-shot decode (all frames of an APNG).
///
/// Thread-safe: the state is behind a lock; one instance serves one download.
///
/// ```swift
/// let decoder = PNGProgressiveDecoder()
/// decoder.update(bytesSoFar, isFinal: false)
/// let partial = try decoder.currentImage(options: ImageCoderOptions())
/// ```
public final class PNGProgressiveDecoder: CoreBackedProgressiveDecoder {
    let core = ProgressiveDecoderCore(coder: PNGCoder(), state: State.self)

    /// Creates a decoder with no bytes yet.
    public init() {}

    /// Signature (8) + IHDR's length and type (8) + its 13 bytes + CRC (4).
    private static let headerLength = 33

    private struct State: PartialImageState {
        var session: Session?

        mutating func partialImage(from data: Data, options: ImageCoderOptions) throws -> Image? {
            guard data.count >= PNGProgressiveDecoder.headerLength else { return nil }
            let source = try PNGProgressiveDecoder.declaredSize(data)
            try DecodeGeometry.checkPixelLimit(width: source.width, height: source.height, options: options)
            if session == nil { session = try Session(options: options) }
            guard let session else { return nil }
            try session.feed(data)
            guard let (header, canvas) = session.canvas() else { return nil }
            guard ImageSize(width: Int(header.width), height: Int(header.height)) == source else {
                throw WebImageError.badImageData("PNG: libpng read a different size than IHDR declares")
            }
            let chunks = PNGProgressiveDecoder.metadata(data)
            let frameCount = min(chunks.declaredFrames, options.frameLimit)
            let target = DecodeGeometry.targetSize(
                sourceSize: source, orientation: chunks.orientation, frameCount: frameCount, options: options)
            var finished = DecodeGeometry.finish(canvas, orientation: chunks.orientation, target: target, options: options)
            // Colours as the one-shot decode gives them.
            let kept = ColorConversion.apply(session.colorProfile(), to: &finished, options: options)
            return Image(
                frames: [ImageFrame(pixels: finished)], format: .png, scale: options.scaleFactor, loopCount: 1,
                orientation: chunks.orientation, hasAlpha: header.color_type & 4 != 0 || header.has_trns != 0,
                isThumbnail: finished.size.pixelCount < source.pixelCount, isIncremental: true, colorProfile: kept)
        }
    }

    /// The size in IHDR, which must be the first chunk.
    private static func declaredSize(_ data: Data) throws -> ImageSize {
        try data.withUnsafeBytes { bytes in
            guard PNGChunks.signature.indices.allSatisfy({ bytes[$0] == PNGChunks.signature[$0] }),
                  PNGChunks.readUInt32(bytes, at: 12) == PNGChunks.IHDR
            else { throw WebImageError.badImageData("PNG does not start with a signature and IHDR") }
            let width = PNGChunks.readUInt32(bytes, at: 16), height = PNGChunks.readUInt32(bytes, at: 20)
            guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
                throw WebImageError.badImageData("PNG declares an invalid size \(width)x\(height)")
            }
            return ImageSize(width: Int(width), height: Int(height))
        }
    }

    /// What the whole chunks so far say: the orientation, read as ``PNGCoder`` reads it
    /// (`eXIf`, an ImageMagick raw profile, else XMP; reading `eXIf` alone turned the
    /// partial images of a PNG oriented by XMP sideways, and the final one upright), and
    /// the frame count an `acTL` before the image data declares (1 without one).
    private static func metadata(_ data: Data) -> (orientation: ImageOrientation, declaredFrames: Int) {
        data.withUnsafeBytes { bytes in
            guard let layout = try? PNGChunks.scan(bytes) else { return (.up, 1) }
            let orientation = PNGCoder().orientation(in: layout, bytes: bytes)
            var frames = 1
            for chunk in layout.chunks {
                if chunk.type == PNGChunks.IDAT { break }
                if chunk.type == PNGChunks.acTL, chunk.payload.count == 8 {
                    let count = Int(PNGChunks.readUInt32(bytes, at: chunk.payload.lowerBound))
                    if count > 0 { frames = count }
                }
            }
            return (orientation, frames)
        }
    }

    /// One libpng progressive reader and how many of the bytes it has been given.
    private final class Session {
        private let stream: OpaquePointer
        private var fed = 0
        /// The colour description, read once the header has been (it comes before the rows).
        private var profile: ColorProfile??

        init(options: ImageCoderOptions) throws {
            let side = UInt32(clamping: min(options.pixelLimit, 0x7FFF_FFFF))
            guard let stream = cpng_stream_create(side, side, UInt64(max(0, options.pixelLimit))) else {
                throw WebImageError.badImageData("libpng could not allocate a decoder")
            }
            self.stream = stream
        }

        deinit { cpng_reader_destroy(stream) }

        /// Gives libpng the bytes it has not seen yet.
        func feed(_ data: Data) throws {
            guard data.count > fed else { return }
            let result = data.withUnsafeBytes { bytes in
                let fresh = UnsafeRawBufferPointer(rebasing: bytes[fed...])
                return cpng_stream_feed(stream, fresh.bindMemory(to: UInt8.self).baseAddress, fresh.count)
            }
            fed = data.count
            guard result == 0 else { throw PNGDecoder.failure(stream) }
        }

        /// The stream's colour profile; call once the header was read (``canvas()`` is non-nil).
        func colorProfile() -> ColorProfile? {
            if let profile { return profile }
            let read = PNGDecoder.colorProfile(stream)
            profile = .some(read)
            return read
        }

        /// The header and a copy of the canvas, once at least one row was drawn.
        func canvas() -> (cpng_header, PixelBuffer)? {
            var header = cpng_header()
            var rows = 0
            guard cpng_stream_header(stream, &header) == 1,
                  let canvas = cpng_stream_canvas(stream, &rows), rows > 0
            else { return nil }
            let pixels = PixelBuffer(uninitializedWidth: Int(header.width), height: Int(header.height)) { buffer in
                // The canvas is exactly width × height × 4 bytes, allocated from the same header.
                buffer.baseAddress?.update(from: canvas, count: buffer.count)
            }
            return (header, pixels)
        }
    }
}
