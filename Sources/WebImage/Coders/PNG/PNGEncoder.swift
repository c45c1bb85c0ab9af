import CPNG
import Foundation

/// libpng, wrapped: encodes one RGBA buffer as an 8-bit PNG stream.
///
/// Also produces the image data of each APNG frame. Stateless; thread-safe.
enum PNGEncoder {
    /// zlib level 6: libpng's and Pillow's default, the usual balance of size and speed.
    static let compressionLevel: Int32 = 6

    /// A complete PNG of `pixels`: colour type RGBA, or RGB when `keepAlpha` is false.
    static func encode(_ pixels: PixelBuffer, keepAlpha: Bool) throws -> [UInt8] {
        guard pixels.width <= 0x7FFF_FFFF, pixels.height <= 0x7FFF_FFFF else {
            throw WebImageError.encodingFailed("PNG: \(pixels.size) exceeds the format's size limit")
        }
        var buffer = cpng_buffer()
        defer { cpng_buffer_free(&buffer) }
        var message = [CChar](repeating: 0, count: 160)
        let status = pixels.bytes.withUnsafeBufferPointer { source in
            cpng_encode(
                source.baseAddress, UInt32(pixels.width), UInt32(pixels.height), pixels.bytesPerRow,
                keepAlpha ? 1 : 0, compressionLevel, &buffer, &message, message.count
            )
        }
        guard status == 0, let data = buffer.data else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw WebImageError.encodingFailed("PNG: " + (reason.isEmpty ? "libpng failed" : reason))
        }
        return Array(UnsafeBufferPointer(start: data, count: buffer.size))
    }
}
