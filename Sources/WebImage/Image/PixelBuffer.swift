#if canImport(Glibc)
import Glibc
#endif

/// Decoded pixels: 8-bit RGBA, straight alpha, rows packed top to bottom with no padding.
///
/// Every decoder produces this one layout, so transformers, encoders and caches never deal
/// with a format's native layout. The storage is a copy-on-write array, so a buffer is a
/// value that can be shared across tasks without copying until someone writes to it.
///
/// ```swift
/// let buffer = PixelBuffer(width: 2, height: 1, filling: .white)
/// let p = buffer[pixel: 1, 0]   // RGBAColor(255, 255, 255, 255)
/// ```
public struct PixelBuffer: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The RGBA bytes, `height` rows of `bytesPerRow` bytes.
    public internal(set) var bytes: [UInt8]

    /// Bytes per row: always `width × 4`, since rows are packed.
    public var bytesPerRow: Int { width * 4 }
    /// The size in pixels.
    public var size: ImageSize { ImageSize(width: width, height: height) }

    /// Wraps existing RGBA bytes. Fails with ``WebImageError/badImageData(_:)`` when the byte
    /// count is not exactly `width × height × 4`.
    public init(width: Int, height: Int, bytes: [UInt8]) throws {
        // Multiplied with overflow checked: sizes may come straight from a file header.
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !overflow, pixels <= Int.max / 4, bytes.count == pixels * 4 else {
            throw WebImageError.badImageData("pixel buffer of \(bytes.count) bytes does not hold \(width)x\(height) RGBA")
        }
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// A buffer of one colour.
    public init(width: Int, height: Int, filling color: RGBAColor) {
        precondition(width > 0 && height > 0, "PixelBuffer needs a positive size")
        self.width = width
        self.height = height
        var pattern = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 0, to: pattern.count, by: 4) {
            pattern[i] = color.red
            pattern[i + 1] = color.green
            pattern[i + 2] = color.blue
            pattern[i + 3] = color.alpha
        }
        self.bytes = pattern
    }

    /// Allocates without zero-filling and lets `fill` write every byte: decoders write
    /// straight into the final storage, so a decode costs one allocation and no copy.
    /// `fill` must initialise all `width × height × 4` bytes.
    init(
        uninitializedWidth width: Int,
        height: Int,
        fill: (UnsafeMutableBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        precondition(width > 0 && height > 0, "PixelBuffer needs a positive size")
        let count = width * height * 4
        self.width = width
        self.height = height
        self.bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            PixelBuffer.adviseHugePages(buffer)
            try fill(buffer)
            initialized = count
        }
    }

    /// The pixel at column `x`, row `y` (0-based, top-left origin).
    public subscript(pixel x: Int, y: Int) -> RGBAColor {
        get {
            let i = (y * width + x) * 4
            return RGBAColor(red: bytes[i], green: bytes[i + 1], blue: bytes[i + 2], alpha: bytes[i + 3])
        }
        set {
            let i = (y * width + x) * 4
            bytes[i] = newValue.red
            bytes[i + 1] = newValue.green
            bytes[i + 2] = newValue.blue
            bytes[i + 3] = newValue.alpha
        }
    }

    /// Whether any pixel is less than fully opaque. Scans the buffer: O(pixels).
    public var containsTransparency: Bool {
        bytes.withUnsafeBufferPointer { p in
            var i = 3
            while i < p.count {
                if p[i] != 255 { return true }
                i += 4
            }
            return false
        }
    }

    /// These pixels composited over an opaque `background` ("over" on straight alpha,
    /// rounded), every pixel made opaque: what a format without alpha (JPEG) must store, and
    /// what an image server's `background` option asks for.
    ///
    /// ```swift
    /// let opaque = pixels.flattened(onto: .white)
    /// ```
    public func flattened(onto background: RGBAColor) -> PixelBuffer {
        PixelBuffer(uninitializedWidth: width, height: height) { dst in
            bytes.withUnsafeBufferPointer { src in
                var i = 0
                while i < src.count {
                    let a = Int(src[i + 3])
                    if a == 255 {
                        dst[i] = src[i]; dst[i + 1] = src[i + 1]; dst[i + 2] = src[i + 2]
                    } else {
                        let ia = 255 - a
                        dst[i] = UInt8((Int(src[i]) * a + Int(background.red) * ia + 127) / 255)
                        dst[i + 1] = UInt8((Int(src[i + 1]) * a + Int(background.green) * ia + 127) / 255)
                        dst[i + 2] = UInt8((Int(src[i + 2]) * a + Int(background.blue) * ia + 127) / 255)
                    }
                    dst[i + 3] = 255
                    i += 4
                }
            }
        }
    }

    /// The bytes this buffer holds in memory (its array's capacity).
    public var memoryCost: Int { bytes.capacity }

    /// Asks Linux to back a large buffer with 2 MB transparent huge pages. A fresh
    /// multi-megabyte buffer otherwise costs one page fault per 4 KB on first write, which
    /// for a 12-megapixel decode measured half as long as the decode itself (16 ms of 49);
    /// with huge pages there are 512 times fewer faults. It is advice: where THP is off,
    /// or no huge page is free, the kernel uses ordinary pages.
    private static func adviseHugePages(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        #if os(Linux)
        let hugePage = 2 << 20
        guard buffer.count >= 2 * hugePage, let base = buffer.baseAddress else { return }
        let start = (Int(bitPattern: base) + hugePage - 1) & ~(hugePage - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(hugePage - 1)
        guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        // Advice only: on failure the pages are simply ordinary ones.
        _ = madvise(aligned, end - start, MADV_HUGEPAGE)
        #endif
    }
}

extension PixelBuffer {
    /// Converts premultiplied RGBA in place to the straight alpha every ``PixelBuffer``
    /// holds, for decoders whose library hands back premultiplied pixels (libtiff's RGBA
    /// reader, premultiplied HEIF). Rounds to nearest; fully transparent pixels keep RGB 0.
    mutating func unpremultiplyAlpha() {
        bytes.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i + 3 < p.count {
                let a = Int(p[i + 3])
                if a == 0 {
                    p[i] = 0; p[i + 1] = 0; p[i + 2] = 0
                } else if a < 255 {
                    p[i] = UInt8(min(255, (Int(p[i]) * 255 + a / 2) / a))
                    p[i + 1] = UInt8(min(255, (Int(p[i + 1]) * 255 + a / 2) / a))
                    p[i + 2] = UInt8(min(255, (Int(p[i + 2]) * 255 + a / 2) / a))
                }
                i += 4
            }
        }
    }
}
