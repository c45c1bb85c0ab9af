/// A rectangle of whole pixels, origin at the top-left corner of the image.
///
/// ```swift
/// let centre = PixelRect(x: 10, y: 10, width: 100, height: 80)
/// ```
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    /// Left edge, in pixels from the image's left side.
    public var x: Int
    /// Top edge, in pixels from the image's top.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a rectangle; negative sizes are kept and treated as empty.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The part of this rectangle inside `bounds` (origin 0, 0), or nil when they do not
    /// overlap by at least one pixel. Computed in wider arithmetic so huge values from a
    /// command line cannot overflow.
    public func clipped(to bounds: ImageSize) -> PixelRect? {
        guard width > 0, height > 0 else { return nil }
        let left = max(0, x), top = max(0, y)
        let right = min(bounds.width, x.saturatingAdding(width))
        let bottom = min(bounds.height, y.saturatingAdding(height))
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The rectangle's width and height.
    public var size: ImageSize { ImageSize(width: width, height: height) }

    /// `x,y,WxH`.
    public var description: String { "\(x),\(y),\(width)x\(height)" }
}

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
