extension PixelBuffer {
    /// The pixels of `area`, which must lie inside this buffer.
    func copying(_ area: PixelRect) -> PixelBuffer {
        let rowBytes = area.width * 4
        return PixelBuffer(uninitializedWidth: area.width, height: area.height) { dst in
            bytes.withUnsafeBytes { src in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                for row in 0..<area.height {
                    let from = ((area.y + row) * width + area.x) * 4
                    (d + row * rowBytes).update(from: s.assumingMemoryBound(to: UInt8.self) + from, count: rowBytes)
                }
            }
        }
    }

    /// A transparent canvas of `size` with `self` drawn at `origin`, clipped to the canvas:
    /// the padding of an aspect-fit resize.
    func placed(onCanvas size: ImageSize, at origin: (x: Int, y: Int)) -> PixelBuffer {
        var canvas = PixelBuffer(width: size.width, height: size.height, filling: .clear)
        guard let visible = PixelRect(x: origin.x, y: origin.y, width: width, height: height).clipped(to: size) else {
            return canvas
        }
        let rowBytes = visible.width * 4
        bytes.withUnsafeBytes { src in
            canvas.bytes.withUnsafeMutableBytes { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                for row in 0..<visible.height {
                    let from = ((visible.y - origin.y + row) * width + (visible.x - origin.x)) * 4
                    let to = ((visible.y + row) * size.width + visible.x) * 4
                    (d + to).copyMemory(from: s + from, byteCount: rowBytes)
                }
            }
        }
        return canvas
    }
}
