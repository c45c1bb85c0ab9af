/// Writes a 32-bit bitmap with a BITMAPV4HEADER whose bit masks include alpha, rows
/// bottom-up (the orientation every reader supports). Stateless; thread-safe.
enum BMPEncoder {
    static let fileHeaderSize = 14
    static let infoHeaderSize = 108

    static func encode(_ pixels: PixelBuffer) throws -> [UInt8] {
        let dataOffset = fileHeaderSize + infoHeaderSize
        let (imageSize, overflow) = pixels.bytesPerRow.multipliedReportingOverflow(by: pixels.height)
        guard !overflow, imageSize <= Int(UInt32.max) - dataOffset, pixels.width <= Int(Int32.max), pixels.height <= Int(Int32.max) else {
            throw WebImageError.encodingFailed("BMP: \(pixels.size) is too large for the format")
        }
        var out: [UInt8] = []
        out.reserveCapacity(dataOffset + imageSize)
        func u16(_ v: Int) { out.append(UInt8(truncatingIfNeeded: v)); out.append(UInt8(truncatingIfNeeded: v >> 8)) }
        func u32(_ v: Int) { u16(v & 0xFFFF); u16(v >> 16 & 0xFFFF) }

        out += [0x42, 0x4D]
        u32(dataOffset + imageSize)
        u32(0)                       // reserved
        u32(dataOffset)
        u32(infoHeaderSize)
        u32(pixels.width)
        u32(pixels.height)           // positive: bottom-up
        u16(1)                       // planes
        u16(32)
        u32(3)                       // BI_BITFIELDS
        u32(imageSize)
        u32(2835); u32(2835)         // 72 dpi
        u32(0); u32(0)               // colours used / important
        u32(0x00FF_0000); u32(0x0000_FF00); u32(0x0000_00FF); u32(Int(0xFF00_0000))
        u32(0x7352_4742)             // 'sRGB' colour space
        out += [UInt8](repeating: 0, count: 36 + 12)   // endpoints and gamma, unused for sRGB

        pixels.bytes.withUnsafeBufferPointer { src in
            for row in stride(from: pixels.height - 1, through: 0, by: -1) {
                var i = row * pixels.bytesPerRow
                let end = i + pixels.bytesPerRow
                while i < end {
                    out.append(src[i + 2]); out.append(src[i + 1]); out.append(src[i]); out.append(src[i + 3])
                    i += 4
                }
            }
        }
        return out
    }
}
