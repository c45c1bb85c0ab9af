/// Turns a GIF's records into finished frames, one at a time: the per-frame step that the
/// one-shot ``GIFCoder`` decode and the lazy ``GIFFrameSource`` share.
///
/// It reads from a ``GIFReader`` up to and including the next image, draws that image on
/// its ``GIFCanvas`` with the graphic control that preceded it, hands back the canvas
/// resized to the target, and applies the frame's disposal so the canvas is ready for the
/// next one. Because it stops between records, a caller may close the reader and continue
/// later from ``GIFReader/position``. Not thread-safe; one decode owns it.
struct GIFCompositor {
    let canvasSize: ImageSize
    let target: ImageSize
    let options: ImageCoderOptions
    private var canvas: GIFCanvas
    private var control = GIFCoder.FrameControl()
    /// Frames produced so far.
    private(set) var frameIndex = 0
    /// Whether any frame so far may show a transparent pixel (see ``CanvasTransparency``).
    var hasAlpha: Bool { transparency.hasAlpha }
    private var transparency: CanvasTransparency

    /// A compositor before frame 0. The caller has checked `canvasSize` against the limit.
    init(canvasSize: ImageSize, target: ImageSize, options: ImageCoderOptions) {
        self.canvasSize = canvasSize
        self.target = target
        self.options = options
        canvas = GIFCanvas(width: canvasSize.width, height: canvasSize.height)
        transparency = CanvasTransparency(width: canvasSize.width, height: canvasSize.height)
    }

    /// Goes back to before frame 0 with a fresh canvas, for a reader that starts over.
    mutating func reset() {
        self = GIFCompositor(canvasSize: canvasSize, target: target, options: options)
    }

    /// The next frame, or `nil` at the trailer. Throws ``WebImageError`` for a frame without
    /// a colour table or above the pixel limit, and ``GIFReader/Failure`` for data giflib
    /// cannot read.
    mutating func nextFrame(from reader: GIFReader, globalPalette: GIFPalette?) throws -> ImageFrame? {
        while true {
            switch try reader.nextRecord() {
            case .extension(let label, let blocks):
                if let parsed = GIFCoder.FrameControl(label: label, blocks: blocks) { control = parsed }
            case .image(let image):
                guard let palette = image.localPalette ?? globalPalette else {
                    throw WebImageError.badImageData("GIF frame \(frameIndex) has no colour table")
                }
                // The frame's own rectangle is decoded even where it is clipped, so
                // it bounds the work as the screen bounds the memory.
                if image.width * image.height > options.pixelLimit {
                    throw WebImageError.imageTooLarge(width: image.width, height: image.height, limit: options.pixelLimit)
                }
                canvas.begin(image, disposal: control.disposal)
                let transparentIndex = control.transparentIndex
                try reader.readPixels(of: image) { row, indices in
                    canvas.draw(row: row, indices: indices, of: image, palette: palette, transparentIndex: transparentIndex)
                }
                transparency.frame(image, control: control)
                let pixels = try PixelBuffer(width: canvasSize.width, height: canvasSize.height, bytes: canvas.rgba)
                let frame = ImageFrame(
                    pixels: DecodeGeometry.finish(pixels, orientation: .up, target: target, options: options),
                    duration: control.duration)
                canvas.dispose()
                control = GIFCoder.FrameControl()
                frameIndex += 1
                return frame
            case .end:
                return nil
            }
        }
    }
}

extension CanvasTransparency {
    /// Follows one GIF frame: its descriptor's rectangle, then its graphic control's
    /// transparent colour and disposal.
    mutating func frame(_ image: GIFImageDescriptor, control: GIFCoder.FrameControl) {
        frame(x: image.left, y: image.top, width: image.width, height: image.height,
              drawsTransparent: control.transparentIndex != nil, disposal: control.disposal)
    }
}
