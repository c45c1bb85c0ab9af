/// The RGBA canvas an APNG's frames are composited on, starting fully transparent black.
///
/// Rectangles come from ``APNGFrameControl``, which has already checked that they lie
/// inside the canvas.
struct APNGCanvas {
    let size: ImageSize
    private(set) var bytes: [UInt8]

    init(size: ImageSize) {
        self.size = size
        bytes = [UInt8](repeating: 0, count: size.pixelCount * 4)
    }

    /// Draws `pixels` (exactly the control's size) with its blend operation.
    mutating func draw(_ pixels: PixelBuffer, at control: APNGFrameControl) {
        let rowBytes = control.width * 4
        let canvasRow = size.width * 4
        pixels.bytes.withUnsafeBufferPointer { src in
            bytes.withUnsafeMutableBufferPointer { dst in
                for row in 0..<control.height {
                    let s = row * rowBytes
                    let d = (control.y + row) * canvasRow + control.x * 4
                    switch control.blend {
                    case .source:
                        _ = UnsafeMutableBufferPointer(rebasing: dst[d..<d + rowBytes]).update(fromContentsOf: src[s..<s + rowBytes])
                    case .over:
                        for i in stride(from: 0, to: rowBytes, by: 4) { APNGCanvas.blendOver(src, s + i, dst, d + i) }
                    }
                }
            }
        }
    }

    /// Porter-Duff "over" on straight alpha, as the APNG specification gives it.
    private static func blendOver(_ src: UnsafeBufferPointer<UInt8>, _ s: Int, _ dst: UnsafeMutableBufferPointer<UInt8>, _ d: Int) {
        let sa = Int(src[s + 3])
        if sa == 0 { return }
        let da = Int(dst[d + 3])
        if sa == 255 || da == 0 {
            dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]; dst[d + 3] = src[s + 3]
            return
        }
        // Weights scaled by 255 so the arithmetic stays in integers; results are rounded.
        let sw = sa * 255, dw = da * (255 - sa)
        let total = sw + dw
        for c in 0..<3 {
            dst[d + c] = UInt8((Int(src[s + c]) * sw + Int(dst[d + c]) * dw + total / 2) / total)
        }
        dst[d + 3] = UInt8((total + 127) / 255)
    }

    /// A copy of the control's rectangle, for "dispose to previous".
    func region(of control: APNGFrameControl) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(control.width * control.height * 4)
        for row in 0..<control.height {
            let start = ((control.y + row) * size.width + control.x) * 4
            out.append(contentsOf: bytes[start..<start + control.width * 4])
        }
        return out
    }

    /// Puts back a rectangle saved with ``region(of:)``.
    mutating func restore(_ saved: [UInt8], at control: APNGFrameControl) {
        let rowBytes = control.width * 4
        for row in 0..<control.height {
            let start = ((control.y + row) * size.width + control.x) * 4
            bytes.replaceSubrange(start..<start + rowBytes, with: saved[row * rowBytes..<(row + 1) * rowBytes])
        }
    }

    /// Clears the control's rectangle to transparent black ("dispose to background").
    mutating func clear(_ control: APNGFrameControl) {
        let rowBytes = control.width * 4
        for row in 0..<control.height {
            let start = ((control.y + row) * size.width + control.x) * 4
            bytes.replaceSubrange(start..<start + rowBytes, with: repeatElement(0, count: rowBytes))
        }
    }
}
