import Foundation

/// Rebuilds and composites the frames of an animated PNG.
///
/// Debian's libpng ignores APNG's chunks, so each frame is turned back into a small PNG
/// stream (IHDR with the frame's size, PLTE and tRNS, its image data as IDAT, IEND) that
/// the ordinary libpng path decodes; the frames are then composited on the canvas with
/// the dispose and blend operations of the APNG specification. Stateless; thread-safe.
enum APNGDecoder {
    /// One frame as found in the file: its control chunk and where its compressed data lies.
    struct Frame {
        var control: APNGFrameControl
        /// Ranges of whole IDAT chunks (length to CRC, copied as they are) or of fdAT
        /// payloads without their sequence number (rewrapped as IDAT).
        var data: [Range<Int>] = []
        var fromIDAT: Bool
    }

    /// The animation a file declares.
    struct Animation {
        var frames: [Frame]
        /// `num_plays`: 0 means forever.
        var playCount: Int
        /// PLTE and tRNS chunks, whole, to copy into each frame's stream.
        var sharedChunks: [Range<Int>]

        /// Whether compositing leaves canvas pixels clear in some frame of a `canvas`-sized
        /// image whose own pixels are opaque: a first frame smaller than the canvas (after a
        /// hidden default image), or what a dispose operation cleared and no later frame
        /// covered (see ``CanvasTransparency``). An RGB APNG can have alpha this way.
        func leavesClearPixels(canvas: ImageSize) -> Bool {
            var transparency = CanvasTransparency(width: canvas.width, height: canvas.height)
            for frame in frames {
                let control = frame.control
                let disposal: CanvasTransparency.Disposal = switch control.dispose {
                case .none: .keep
                case .background: .clear
                // On the first frame it restores the empty canvas: clear, as the specification
                // says to treat it.
                case .previous: .restorePrevious
                }
                transparency.frame(x: control.x, y: control.y, width: control.width, height: control.height,
                                   drawsTransparent: false, disposal: disposal)
            }
            return transparency.hasAlpha
        }
    }

    /// The animation in `layout`, or `nil` when there is no `acTL` before the image data
    /// (a plain PNG; an `acTL` after IDAT is ignored, as the specification says). Any
    /// inconsistency in the APNG chunks throws ``WebImageError/badImageData(_:)``, as
    /// Pillow does, rather than showing a half-understood animation. A file cut short gives
    /// the frames before the cut (issue 3: truncated animations give their whole frames).
    /// `lazy` (for ``APNGFrameSource``) leaves the all-frames pixel limit out, since a lazy
    /// source holds one canvas at a time.
    static func animation(
        in layout: PNGChunks.Layout,
        bytes: UnsafeRawBufferPointer,
        header: PNGDecoder.Header,
        options: ImageCoderOptions,
        lazy: Bool = false
    ) throws -> Animation? {
        let canvas = ImageSize(width: header.width, height: header.height)
        var declaredFrames = 0, playCount = 0
        var frames: [Frame] = []
        var shared: [Range<Int>] = []
        var sharedTypes: Set<UInt32> = []
        var nextSequence: UInt32 = 0
        var seenIDAT = false, afterIDAT = false

        func checked(_ chunk: PNGChunks.Chunk) throws -> UnsafeRawBufferPointer {
            guard PNGChunks.hasValidCRC(chunk, in: bytes) else {
                throw WebImageError.badImageData("APNG chunk with a bad CRC")
            }
            return UnsafeRawBufferPointer(rebasing: bytes[chunk.payload])
        }
        func takeSequence(_ value: UInt32) throws {
            guard value == nextSequence else { throw WebImageError.badImageData("APNG sequence numbers out of order") }
            nextSequence &+= 1
        }

        for chunk in layout.chunks {
            let whole = chunk.payload.lowerBound - 8..<chunk.crcOffset + 4
            switch chunk.type {
            case PNGChunks.acTL where !seenIDAT && declaredFrames == 0:
                let payload = try checked(chunk)
                guard payload.count == 8 else { throw WebImageError.badImageData("APNG acTL chunk is not 8 bytes") }
                let count = PNGChunks.readUInt32(payload, at: 0)
                guard count > 0, count <= 0x7FFF_FFFF else { throw WebImageError.badImageData("APNG declares no frames") }
                declaredFrames = Int(count)
                playCount = Int(PNGChunks.readUInt32(payload, at: 4))
                // Every frame is held at canvas size, so the whole animation must fit the limit
                // (a lazy source holds one canvas, which the caller has checked).
                let (total, overflow) = canvas.pixelCount.multipliedReportingOverflow(by: min(declaredFrames, options.frameLimit))
                if !lazy, overflow || total > options.pixelLimit {
                    throw WebImageError.imageTooLarge(width: header.width, height: header.height * declaredFrames, limit: options.pixelLimit)
                }
            case PNGChunks.PLTE where !seenIDAT:
                // Copied into every frame's stream: one, of at most 256 entries, as the
                // format allows (a review found any number of any size copied per frame,
                // 40 GB of copying and CRCs from a 5 MB file of 10,000 frames).
                guard chunk.payload.count <= 3 * 256 else { throw WebImageError.badImageData("PNG palette of more than 256 entries") }
                if !sharedTypes.contains(chunk.type) { shared.append(whole) }
                sharedTypes.insert(chunk.type)
            case PNGChunks.tRNS where !seenIDAT:
                // The first one, at most one alpha per palette entry; libpng ignores a
                // repeated or longer one, and so does the copy each frame gets.
                if chunk.payload.count <= 256, !sharedTypes.contains(chunk.type) { shared.append(whole) }
                sharedTypes.insert(chunk.type)
            case PNGChunks.fcTL where declaredFrames > 0:
                let control = try APNGFrameControl(payload: checked(chunk), canvas: canvas)
                try takeSequence(control.sequence)
                if let last = frames.last, last.data.isEmpty {
                    throw WebImageError.badImageData("APNG frame without image data")
                }
                guard frames.count < declaredFrames else { throw WebImageError.badImageData("APNG has more frames than acTL declares") }
                if !seenIDAT {
                    guard control.x == 0, control.y == 0, control.width == canvas.width, control.height == canvas.height else {
                        throw WebImageError.badImageData("APNG default image frame does not cover the canvas")
                    }
                }
                frames.append(Frame(control: control, fromIDAT: !seenIDAT))
            case PNGChunks.IDAT:
                guard !afterIDAT else { throw WebImageError.badImageData("PNG image data is not contiguous") }
                seenIDAT = true
                if let last = frames.indices.last, frames[last].fromIDAT { frames[last].data.append(whole) }
            case PNGChunks.fdAT where declaredFrames > 0:
                let payload = try checked(chunk)
                guard payload.count > 4, let last = frames.indices.last, !frames[last].fromIDAT else {
                    throw WebImageError.badImageData("APNG fdAT chunk outside a frame")
                }
                try takeSequence(PNGChunks.readUInt32(payload, at: 0))
                frames[last].data.append(chunk.payload.lowerBound + 4..<chunk.payload.upperBound)
            default:
                break
            }
            if seenIDAT && chunk.type != PNGChunks.IDAT { afterIDAT = true }
        }
        guard declaredFrames > 0 else { return nil }
        // Cut short: the last frame may lack some of its data, the ones before it are whole.
        // When every declared frame has started, the one-shot decode tries them all (libpng
        // fails an incomplete last frame with badImageData), so a file missing only its IEND
        // still decodes whole.
        let cutShort = layout.chunks.last?.type != PNGChunks.IEND
        if cutShort, lazy || frames.count < declaredFrames {
            frames.removeLast(frames.isEmpty ? 0 : 1)
            guard !frames.isEmpty else { throw WebImageError.badImageData("APNG has no whole frame") }
            frames.removeLast(max(0, frames.count - options.frameLimit))
            return Animation(frames: frames, playCount: playCount, sharedChunks: shared)
        }
        guard frames.count == declaredFrames, frames.allSatisfy({ !$0.data.isEmpty }) else {
            throw WebImageError.badImageData("APNG declares \(declaredFrames) frames but holds \(frames.count) complete ones")
        }
        // The frames past the limit are checked as a whole file's are, but not decoded.
        frames.removeLast(max(0, frames.count - options.frameLimit))
        return Animation(frames: frames, playCount: playCount, sharedChunks: shared)
    }

    /// Decodes and composites every frame, then resizes and orients each one.
    static func decodeFrames(
        of animation: Animation,
        bytes: UnsafeRawBufferPointer,
        header: PNGDecoder.Header,
        orientation: ImageOrientation,
        options: ImageCoderOptions
    ) throws -> [ImageFrame] {
        let canvasSize = ImageSize(width: header.width, height: header.height)
        let target = DecodeGeometry.targetSize(
            sourceSize: canvasSize, orientation: orientation, frameCount: animation.frames.count, options: options
        )
        var compositor = APNGCompositor(
            animation: animation, header: header, orientation: orientation, target: target, options: options)
        var output: [ImageFrame] = []
        output.reserveCapacity(animation.frames.count)
        while compositor.nextIndex < animation.frames.count {
            output.append(try compositor.nextFrame(bytes: bytes))
        }
        return output
    }

    /// A standalone PNG stream for one frame.
    static func frameStream(
        _ frame: Frame,
        animation: Animation,
        bytes: UnsafeRawBufferPointer,
        header: PNGDecoder.Header
    ) -> [UInt8] {
        var frameHeader = header
        frameHeader.width = frame.control.width
        frameHeader.height = frame.control.height
        var out = PNGChunks.signature
        out.reserveCapacity(frame.data.reduce(256) { $0 + $1.count + 12 })
        PNGChunks.append(type: PNGChunks.IHDR, payload: frameHeader.bytes, to: &out)
        for range in animation.sharedChunks { out.append(contentsOf: bytes[range]) }
        for range in frame.data {
            if frame.fromIDAT {
                out.append(contentsOf: bytes[range])
            } else {
                PNGChunks.append(type: PNGChunks.IDAT, payload: UnsafeRawBufferPointer(rebasing: bytes[range]), to: &out)
            }
        }
        PNGChunks.append(type: PNGChunks.IEND, payload: [], to: &out)
        return out
    }
}
