/// Decodes an APNG's frames in order and composites each on the canvas: the per-frame step
/// that the one-shot ``PNGCoder`` decode and the lazy ``APNGFrameSource`` share.
///
/// Each frame is rebuilt as a small PNG stream, decoded by libpng, drawn with its blend
/// operation, handed back resized and oriented, and then disposed (background, previous)
/// so the canvas is ready for the next frame. Not thread-safe; one decode owns it.
struct APNGCompositor {
    let animation: APNGDecoder.Animation
    let header: PNGDecoder.Header
    let orientation: ImageOrientation
    let target: ImageSize
    let options: ImageCoderOptions
    /// The profile each finished frame is converted from: set by the lazy
    /// ``APNGFrameSource`` only, since the one-shot decode converts all frames at the end.
    var colorProfile: ColorProfile?
    private var canvas: APNGCanvas
    /// The frame ``nextFrame(bytes:)`` produces next.
    private(set) var nextIndex = 0

    /// A compositor before frame 0, with a transparent canvas of the header's size.
    init(animation: APNGDecoder.Animation, header: PNGDecoder.Header, orientation: ImageOrientation,
         target: ImageSize, options: ImageCoderOptions) {
        self.animation = animation
        self.header = header
        self.orientation = orientation
        self.target = target
        self.options = options
        canvas = APNGCanvas(size: ImageSize(width: header.width, height: header.height))
    }

    /// Goes back to before frame 0 with a fresh transparent canvas.
    mutating func reset() {
        canvas = APNGCanvas(size: canvas.size)
        nextIndex = 0
    }

    /// Frame ``nextIndex``, read from `bytes` (the file the animation was found in). The
    /// caller keeps `nextIndex` below the animation's frame count.
    mutating func nextFrame(bytes: UnsafeRawBufferPointer) throws -> ImageFrame {
        let index = nextIndex
        let frame = animation.frames[index]
        let stream = APNGDecoder.frameStream(frame, animation: animation, bytes: bytes, header: header)
        let pixels = try stream.withUnsafeBytes { try PNGDecoder.decode($0, options: options) }
        let control = frame.control
        guard pixels.width == control.width, pixels.height == control.height else {
            throw WebImageError.badImageData("APNG frame size does not match its fcTL")
        }
        // The spec treats "previous" on the first frame as "background".
        let dispose: APNGFrameControl.Dispose = index == 0 && control.dispose == .previous ? .background : control.dispose
        let saved = dispose == .previous ? canvas.region(of: control) : nil
        canvas.draw(pixels, at: control)
        let composed = try PixelBuffer(width: canvas.size.width, height: canvas.size.height, bytes: canvas.bytes)
        var finished = DecodeGeometry.finish(composed, orientation: orientation, target: target, options: options)
        // Only the lazy frame source sets a profile here, and it has no image to hand one
        // on in: its frames are sRGB even with keepsColorProfile (see FrameFinish).
        var converting = options
        converting.keepsColorProfile = false
        _ = ColorConversion.apply(colorProfile, to: &finished, options: converting)
        switch dispose {
        case .none: break
        case .background: canvas.clear(control)
        case .previous: if let saved { canvas.restore(saved, at: control) }
        }
        nextIndex += 1
        return ImageFrame(pixels: finished, duration: control.duration)
    }
}
