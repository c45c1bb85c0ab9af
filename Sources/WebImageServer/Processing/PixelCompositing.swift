import WebImage

/// The compositing step the library's transformers do not cover: padding an image onto a
/// larger canvas (imgproxy's `extend`). Flattening (imgproxy's `background`) is the
/// library's `PixelBuffer.flattened(onto:)`. A pure function on straight-alpha RGBA.
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
}
