/// The headers of a Windows bitmap: the 14-byte file header and the DIB header that
/// follows (OS/2 core, BITMAPINFOHEADER, V2–V5), with every field checked against the data.
struct BMPHeader {
    enum Compression: UInt32 {
        case rgb = 0, rle8 = 1, rle4 = 2, bitfields = 3, alphaBitfields = 6
    }

    var width: Int
    var height: Int
    /// Rows stored top to bottom (negative height in the file) rather than bottom-up.
    var topDown: Bool
    var bitCount: Int
    var compression: Compression
    /// Channel masks for 16- and 32-bit pixels; `alpha` is 0 when there is no alpha.
    var masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32)
    /// The colour table as RGB triples, for 1-, 4- and 8-bit images.
    var palette: [(UInt8, UInt8, UInt8)]
    /// Where the pixel data starts.
    var pixelOffset: Int

    /// Parses the headers. Throws ``WebImageError/badImageData(_:)`` for anything
    /// inconsistent and ``WebImageError/unsupportedFormat(_:)`` for valid but unsupported
    /// variants (embedded JPEG/PNG, unusual bit depths).
    init(_ bytes: UnsafeRawBufferPointer) throws {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
        func i32(_ at: Int) -> Int { Int(Int32(bitPattern: u32(at))) }

        guard bytes.count >= 18, bytes[0] == 0x42, bytes[1] == 0x4D else {
            throw WebImageError.badImageData("missing BMP signature")
        }
        let headerSize = Int(u32(14))
        guard [12, 40, 52, 56, 64, 108, 124].contains(headerSize) else {
            throw WebImageError.badImageData("unknown BMP header size \(headerSize)")
        }
        guard bytes.count >= 14 + headerSize else { throw WebImageError.badImageData("BMP header is truncated") }

        let rawHeight: Int
        let declaredColors: Int
        if headerSize == 12 {
            width = u16(18)
            rawHeight = u16(20)
            bitCount = u16(24)
            compression = .rgb
            declaredColors = 0
        } else {
            width = i32(18)
            rawHeight = i32(22)
            bitCount = u16(28)
            // OS/2 2.x (64-byte header) numbers its compressions differently; only the
            // values shared with Windows are accepted.
            let code = u32(30)
            guard let known = Compression(rawValue: code) else {
                if code == 4 || code == 5 { throw WebImageError.unsupportedFormat(.bmp) }
                throw WebImageError.badImageData("unknown BMP compression \(code)")
            }
            compression = known
            declaredColors = Int(u32(46))
        }
        guard rawHeight != Int(Int32.min), width > 0, rawHeight != 0 else {
            throw WebImageError.badImageData("BMP declares an invalid size \(width)x\(rawHeight)")
        }
        topDown = rawHeight < 0
        height = abs(rawHeight)

        switch (bitCount, compression) {
        case (1, .rgb), (4, .rgb), (8, .rgb), (24, .rgb), (16, .rgb), (32, .rgb),
             (8, .rle8), (4, .rle4), (16, .bitfields), (32, .bitfields), (16, .alphaBitfields), (32, .alphaBitfields):
            break
        default:
            throw WebImageError.unsupportedFormat(.bmp)
        }
        if topDown && (compression == .rle4 || compression == .rle8) {
            throw WebImageError.badImageData("BMP run-length data cannot be top-down")
        }

        // Masks live in the header from V2 on; BITMAPINFOHEADER puts them right after it.
        var tableStart = 14 + headerSize
        switch compression {
        case .bitfields, .alphaBitfields:
            let fromHeader = headerSize >= 52
            let count = compression == .alphaBitfields || headerSize >= 56 ? 4 : 3
            let at = fromHeader ? 54 : tableStart
            guard bytes.count >= at + count * 4 else { throw WebImageError.badImageData("BMP bit masks are truncated") }
            masks = (u32(at), u32(at + 4), u32(at + 8), count == 4 ? u32(at + 12) : 0)
            if !fromHeader { tableStart += count * 4 }
        case .rgb where bitCount == 16:
            masks = (0x7C00, 0x03E0, 0x001F, 0)
        default:
            masks = (0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0)
        }

        let offset = Int(u32(10))
        palette = []
        if bitCount <= 8 {
            let entrySize = headerSize == 12 ? 3 : 4
            let maximum = 1 << bitCount
            let wanted = declaredColors > 0 && declaredColors < maximum ? declaredColors : maximum
            // The table ends where the pixels begin (or at the end of the data), whichever
            // comes first; a short table leaves the missing entries black.
            let limit = offset > tableStart ? min(offset, bytes.count) : bytes.count
            let present = max(0, min(wanted, (limit - tableStart) / entrySize))
            palette.reserveCapacity(present)
            for index in 0..<present {
                let at = tableStart + index * entrySize
                palette.append((bytes[at + 2], bytes[at + 1], bytes[at]))
            }
            tableStart += present * entrySize
        }
        // Some writers leave the offset 0; the pixels then follow the colour table.
        pixelOffset = offset == 0 ? tableStart : offset
        guard pixelOffset >= 14 + headerSize, pixelOffset < bytes.count else {
            throw WebImageError.badImageData("BMP pixel data offset \(pixelOffset) lies outside the data")
        }
    }

    /// Bytes per stored row: rows are padded to four bytes.
    var rowStride: Int { (width * bitCount + 31) / 32 * 4 }

    /// Whether the pixels carry an alpha channel: an alpha mask for bit-field images (the
    /// fourth byte of plain 32-bit data is reserved; see ``BMPDecoder``).
    var hasAlphaMask: Bool { masks.alpha != 0 && (compression == .bitfields || compression == .alphaBitfields) }
}
