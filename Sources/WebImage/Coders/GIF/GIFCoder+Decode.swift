import Foundation

extension GIFCoder {
    /// What the structure scan learnt before any pixel is decoded.
    struct DecodePlan {
        let canvas: ImageSize
        /// Frames to decode: the whole image records found, at most `options.frameLimit`.
        let frameCount: Int
        /// The NETSCAPE2.0 loop count, or 1 when the file has none.
        let loopCount: Int
    }

    /// First pass: checks the logical screen against the pixel limit, then (unless only the
    /// first frame is wanted) walks the records without decoding pixels to count the whole
    /// frames and find the loop count, so the frame-count-aware target size and the limit
    /// on all frames' pixels are known before any pixel is decoded.
    static func plan(_ bytes: UnsafeRawBufferPointer, options: ImageCoderOptions) throws -> DecodePlan {
        try withReader(bytes) { reader in
            let canvas = reader.canvasSize
            try DecodeGeometry.checkPixelLimit(width: canvas.width, height: canvas.height, options: options)
            guard !options.decodeFirstFrameOnly else { return DecodePlan(canvas: canvas, frameCount: 1, loopCount: 1) }
            var frames = 0
            var loopCount = 1
            var rectangles = DecodedRectangles(limit: options.pixelLimit)
            scanning: while frames < options.frameLimit {
                // A failure here is a truncated or corrupt tail: the frames counted so far
                // are the whole ones.
                guard let record = try? reader.nextRecord() else { break }
                switch record {
                case .image(let image):
                    // A frame cut short ends the animation before it counts.
                    guard (try? reader.skipPixels()) != nil else { break scanning }
                    try rectangles.add(image)
                    frames += 1
                case .extension(let label, let blocks):
                    if let count = netscapeLoopCount(label: label, blocks: blocks) { loopCount = count }
                case .end:
                    break scanning
                }
            }
            guard frames > 0 else { throw WebImageError.badImageData("GIF has no whole frame") }
            let (total, overflow) = canvas.pixelCount.multipliedReportingOverflow(by: frames)
            if overflow || total > options.pixelLimit {
                throw WebImageError.imageTooLarge(width: canvas.width, height: canvas.height, limit: options.pixelLimit)
            }
            return DecodePlan(canvas: canvas, frameCount: frames, loopCount: loopCount)
        }
    }

    /// The pixels of every frame's own rectangle together, against the pixel limit. A frame
    /// is decoded whole however much of it the screen clips, so the rectangles bound the
    /// work as the screen bounds the memory: a 1 × 1 screen over frames of 10,000 × 10,000
    /// (40 KB each, one colour) passed every per-frame check and cost 2.5 billion decoded
    /// pixels per megabyte of file. Checked while the records are walked, before any pixel
    /// is decoded. For the one-shot decode only: a lazy ``GIFFrameSource`` holds one canvas
    /// and decodes a frame at a time, each rectangle within the limit on its own.
    struct DecodedRectangles {
        let limit: Int
        private(set) var total = 0

        init(limit: Int) {
            self.limit = limit
        }

        mutating func add(_ image: GIFImageDescriptor) throws {
            let (sum, overflow) = total.addingReportingOverflow(image.width * image.height)
            guard !overflow, sum <= limit else {
                throw WebImageError.imageTooLarge(width: image.width, height: image.height, limit: limit)
            }
            total = sum
        }
    }

    /// Second pass: decodes and composites up to `plan.frameCount` frames, resizing each
    /// to the target size. A failure after at least one frame ends the animation there.
    static func composite(_ bytes: UnsafeRawBufferPointer, plan: DecodePlan, options: ImageCoderOptions) throws -> Image {
        try withReader(bytes) { reader in
            let target = DecodeGeometry.targetSize(
                sourceSize: plan.canvas, orientation: .up, frameCount: plan.frameCount, options: options)
            let globalPalette = reader.globalPalette
            var compositor = GIFCompositor(canvasSize: plan.canvas, target: target, options: options)
            var frames: [ImageFrame] = []
            do {
                while frames.count < plan.frameCount,
                      let frame = try compositor.nextFrame(from: reader, globalPalette: globalPalette) {
                    frames.append(frame)
                }
            } catch let failure as GIFReader.Failure {
                guard !frames.isEmpty else { throw WebImageError.badImageData("GIF: \(failure.reason)") }
            }
            let hasAlpha = compositor.hasAlpha
            guard !frames.isEmpty else { throw WebImageError.badImageData("GIF has no whole frame") }
            if frames.count == 1 { frames[0].duration = 0 }
            return Image(
                frames: frames, format: .gif, scale: options.scaleFactor, loopCount: plan.loopCount,
                orientation: .up, hasAlpha: hasAlpha, isThumbnail: target != plan.canvas)
        }
    }

    /// Opens giflib, turning its failures to open (bad signature, cut-short header) into
    /// ``WebImageError/badImageData(_:)``.
    static func withReader<R>(_ bytes: UnsafeRawBufferPointer, resumingAt offset: Int? = nil,
                              _ body: (GIFReader) throws -> R) throws -> R {
        do {
            return try GIFReader.read(bytes, resumingAt: offset, body)
        } catch let failure as GIFReader.Failure {
            throw WebImageError.badImageData("GIF: \(failure.reason)")
        }
    }

    /// The loop count of a NETSCAPE2.0 (or its alias ANIMEXTS1.0) application extension:
    /// sub-block 1 is `01 lo hi`.
    static func netscapeLoopCount(label: Int, blocks: [[UInt8]]) -> Int? {
        guard label == 0xFF, blocks.count >= 2, blocks[0] == netscapeID || blocks[0] == animextsID else { return nil }
        let data = blocks[1]
        guard data.count >= 3, data[0] == 1 else { return nil }
        return Int(data[1]) | Int(data[2]) << 8
    }

    private static let netscapeID = Array("NETSCAPE2.0".utf8)
    private static let animextsID = Array("ANIMEXTS1.0".utf8)

    /// The graphic control extension that applies to the next image.
    struct FrameControl {
        var disposal = GIFCanvas.Disposal.keep
        var transparentIndex: Int?
        /// In hundredths of a second, as stored.
        var delay = 0

        init() {}

        /// Parses a graphic control extension (label 0xF9, one 4-byte block); `nil` for any
        /// other extension or a malformed one.
        init?(label: Int, blocks: [[UInt8]]) {
            guard label == 0xF9, let block = blocks.first, block.count >= 4 else { return nil }
            disposal = GIFCanvas.Disposal(gifValue: Int(block[0] >> 2) & 0x07)
            transparentIndex = block[0] & 0x01 != 0 ? Int(block[3]) : nil
            delay = Int(block[1]) | Int(block[2]) << 8
        }

        /// Seconds on screen. Browsers and SDWebImage show delays under 11 ms (often 0,
        /// written by tools that meant "as fast as possible") for 100 ms.
        var duration: TimeInterval {
            let seconds = Double(delay) / 100
            return seconds < 0.011 ? 0.1 : seconds
        }
    }
}
