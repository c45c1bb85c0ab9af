/// Turns a bitmap's stored pixels into RGBA, pure Swift.
///
/// Rules that differ between decoders, chosen here:
/// - Plain (`BI_RGB`) 32-bit pixels are opaque: the fourth byte is reserved, and Chrome,
///   Firefox and Pillow all ignore it (Firefox and Chrome read it as alpha only inside an
///   ICO; bmpsuite's `rgb32fakealpha.bmp` checks exactly this). Alpha comes from a V3+
///   header's alpha mask.
/// - Bit-field channels narrower than 8 bits scale as `v * 255 / max` (as Pillow does).
/// - Colour-table indices beyond the table are black.
/// - Uncompressed data must hold every row (else ``WebImageError/badImageData(_:)``);
///   run-length data is decoded until it ends, and pixels it skips or never reaches are
///   transparent, as browsers show them.
enum BMPDecoder {
    /// The decoded pixels, as stored (no resizing), and whether they use alpha.
    static func decode(_ bytes: UnsafeRawBufferPointer, header: BMPHeader) throws -> (PixelBuffer, hasAlpha: Bool) {
        switch header.compression {
        case .rle4, .rle8:
            return try decodeRunLength(bytes, header: header)
        default:
            return try decodeUncompressed(bytes, header: header)
        }
    }

    private static func decodeUncompressed(_ bytes: UnsafeRawBufferPointer, header: BMPHeader) throws -> (PixelBuffer, hasAlpha: Bool) {
        let width = header.width, height = header.height, stride = header.rowStride
        let lastRowBytes = (width * header.bitCount + 7) / 8
        let available = bytes.count - header.pixelOffset
        guard available >= stride * (height - 1) + lastRowBytes else {
            throw WebImageError.badImageData("BMP pixel data is truncated")
        }
        let channels = MaskedChannels(header: header)
        let pixels = PixelBuffer(uninitializedWidth: width, height: height) { out in
            for row in 0..<height {
                let source = header.pixelOffset + (header.topDown ? row : height - 1 - row) * stride
                var o = row * width * 4
                switch header.bitCount {
                case 1, 4, 8:
                    let bits = header.bitCount, perByte = 8 / bits, mask = (1 << bits) - 1
                    for x in 0..<width {
                        let byte = Int(bytes[source + x / perByte])
                        let index = byte >> (8 - bits * (x % perByte + 1)) & mask
                        writePalette(index, header.palette, out, o)
                        o += 4
                    }
                case 24:
                    for x in 0..<width {
                        let s = source + x * 3
                        out[o] = bytes[s + 2]; out[o + 1] = bytes[s + 1]; out[o + 2] = bytes[s]; out[o + 3] = 255
                        o += 4
                    }
                case 16:
                    for x in 0..<width {
                        let s = source + x * 2
                        channels.write(UInt32(bytes[s]) | UInt32(bytes[s + 1]) << 8, out, o)
                        o += 4
                    }
                default:
                    for x in 0..<width {
                        let s = source + x * 4
                        let value = UInt32(bytes[s]) | UInt32(bytes[s + 1]) << 8 | UInt32(bytes[s + 2]) << 16 | UInt32(bytes[s + 3]) << 24
                        channels.write(value, out, o)
                        o += 4
                    }
                }
            }
        }
        return (pixels, header.hasAlphaMask)
    }

    @inline(__always)
    private static func writePalette(_ index: Int, _ palette: [(UInt8, UInt8, UInt8)], _ out: UnsafeMutableBufferPointer<UInt8>, _ o: Int) {
        if index < palette.count {
            let entry = palette[index]
            out[o] = entry.0; out[o + 1] = entry.1; out[o + 2] = entry.2
        } else {
            out[o] = 0; out[o + 1] = 0; out[o + 2] = 0
        }
        out[o + 3] = 255
    }

    /// Run-length data (RLE8 / RLE4), rows bottom-up, as Windows defines it.
    private static func decodeRunLength(_ bytes: UnsafeRawBufferPointer, header: BMPHeader) throws -> (PixelBuffer, hasAlpha: Bool) {
        let width = header.width, height = header.height
        let four = header.compression == .rle4
        var skipped = false
        var written = 0
        let pixels = PixelBuffer(uninitializedWidth: width, height: height) { out in
            out.initialize(repeating: 0)
            var p = header.pixelOffset, x = 0, y = 0   // y counts rows from the bottom
            func put(_ index: Int) {
                if x < width {
                    writePalette(index, header.palette, out, ((height - 1 - y) * width + x) * 4)
                    written += 1
                }
                x += 1
            }
            decoding: while p + 1 < bytes.count, y < height {
                let count = Int(bytes[p]), value = Int(bytes[p + 1])
                p += 2
                if count > 0 {
                    for i in 0..<count { put(four ? (i % 2 == 0 ? value >> 4 : value & 0x0F) : value) }
                    continue
                }
                switch value {
                case 0:
                    x = 0
                    y += 1
                case 1:
                    break decoding
                case 2:
                    guard p + 1 < bytes.count else { break decoding }
                    x += Int(bytes[p])
                    y += Int(bytes[p + 1])
                    p += 2
                    skipped = true
                default:
                    let dataBytes = four ? (value + 1) / 2 : value
                    guard dataBytes <= bytes.count - p else { break decoding }
                    for i in 0..<value {
                        let byte = Int(bytes[p + (four ? i / 2 : i)])
                        put(four ? (i % 2 == 0 ? byte >> 4 : byte & 0x0F) : byte)
                    }
                    p += (dataBytes + 1) & ~1   // runs are padded to 16 bits
                }
            }
        }
        let complete = written == width * height && !skipped
        return (pixels, !complete)
    }
}

/// Extracts channels from 16- or 32-bit pixels through their masks.
private struct MaskedChannels {
    struct Channel {
        let mask: UInt32
        let shift: UInt32
        let maximum: UInt32

        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            maximum = mask >> shift
        }

        /// The value scaled to 0...255; `fallback` when the mask is empty.
        @inline(__always)
        func value(_ pixel: UInt32, fallback: UInt8) -> UInt8 {
            guard maximum > 0 else { return fallback }
            let v = UInt64((pixel & mask) >> shift)
            return UInt8(truncatingIfNeeded: v * 255 / UInt64(maximum))
        }
    }

    let red, green, blue, alpha: Channel

    init(header: BMPHeader) {
        red = Channel(header.masks.red)
        green = Channel(header.masks.green)
        blue = Channel(header.masks.blue)
        alpha = Channel(header.hasAlphaMask ? header.masks.alpha : 0)
    }

    @inline(__always)
    func write(_ pixel: UInt32, _ out: UnsafeMutableBufferPointer<UInt8>, _ o: Int) {
        out[o] = red.value(pixel, fallback: 0)
        out[o + 1] = green.value(pixel, fallback: 0)
        out[o + 2] = blue.value(pixel, fallback: 0)
        out[o + 3] = alpha.value(pixel, fallback: 255)
    }
}
