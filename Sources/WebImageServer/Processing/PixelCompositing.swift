import WebImage

/// The two compositing steps the library's transformers do not cover: padding an image onto
/// a larger canvas (imgproxy's `extend`) and flattening transparency onto a colour
/// (imgproxy's `background`). Pure functions on straight-alpha RGBA.
enum PixelCompositing {
    /// `pixels` placed at `placement` on a `canvas`-sized buffer filled with `color`.
    static func pad(_ pixels: PixelBuffer, to canvas: ImageSize, at placement: PixelRect, with color: RGBAColor) throws -> PixelBuffer {
        var bytes = PixelBuffer(width: canvas.width, height: canvas.height, filling: color).bytes
        let rowBytes = pixels.width * 4
        // The placement comes from ResizeGeometry, which keeps it inside the canvas; clamp
        // anyway so a wrong rectangle cannot write outside the buffer.
        let rows = max(0, min(pixels.height, canvas.height - placement.y))
        let copiedBytes = max(0, min(rowBytes, (canvas.width - placement.x) * 4))
        pixels.bytes.withUnsafeBufferPointer { source in
            bytes.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress, copiedBytes > 0 else { return }
                for row in 0..<rows {
                    (to + ((placement.y + row) * canvas.width + placement.x) * 4)
                        .update(from: from + row * rowBytes, count: copiedBytes)
                }
            }
        }
        return try PixelBuffer(width: canvas.width, height: canvas.height, bytes: bytes)
    }

    /// `pixels` composited over an opaque `background` ("over", straight alpha, rounded).
    static func flatten(_ pixels: PixelBuffer, onto background: RGBAColor) throws -> PixelBuffer {
        guard pixels.containsTransparency else { return pixels }
        var bytes = pixels.bytes
        let back = [UInt32(background.red), UInt32(background.green), UInt32(background.blue)]
        var index = 0
        while index < bytes.count {
            let alpha = UInt32(bytes[index + 3])
            if alpha != 255 {
                for channel in 0..<3 {
                    let value = UInt32(bytes[index + channel]) * alpha + back[channel] * (255 - alpha)
                    bytes[index + channel] = UInt8((value + 127) / 255)
                }
                bytes[index + 3] = 255
            }
            index += 4
        }
        return try PixelBuffer(width: pixels.width, height: pixels.height, bytes: bytes)
    }
}
