import CPNG

/// ImageMagick's way of keeping EXIF in a PNG before the `eXIf` chunk existed (and still
/// its default): a `tEXt` or `zTXt` text chunk keyed `Raw profile type exif` (or
/// `Raw profile type APP1`) whose text is the block in hexadecimal:
///
/// ```
/// \nexif\n      94\n4578696600004d4d002a00000008...
/// ```
///
/// a blank line, the profile's name, its length in bytes, then the hex digits in lines of
/// 72. Pillow reads it as the image's EXIF when there is no `eXIf` (`Image.getexif`), so a
/// photo that went through ImageMagick keeps its orientation there; browsers do not.
///
/// Untrusted throughout: a compressed text inflates into a buffer sized by the limit, never
/// by what the chunk claims, and the declared length is checked against
/// ``ImageMetadata/maximumBlockSize`` before anything is decoded.
enum PNGRawProfile {
    static let tEXt = PNGChunks.code("tEXt"), zTXt = PNGChunks.code("zTXt")
    private static let keywords = ["Raw profile type exif", "Raw profile type APP1"].map { Array($0.utf8) + [0] }

    /// The EXIF block (TIFF-structured, JPEG's `Exif\0\0` prefix removed) of the first raw
    /// EXIF profile, or `nil` when there is none or it is damaged.
    static func exif(in layout: PNGChunks.Layout, bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        for chunk in layout.chunks where chunk.type == tEXt || chunk.type == zTXt {
            let payload = UnsafeRawBufferPointer(rebasing: bytes[chunk.payload])
            guard let keyword = keywords.first(where: { payload.starts(with: $0) }) else { continue }
            let rest = UnsafeRawBufferPointer(rebasing: payload[keyword.count...])
            guard let text = chunk.type == tEXt ? [UInt8](rest) : inflated(rest),
                  var block = decodedHex(text)
            else { return nil }
            if block.starts(with: ImageMetadata.jpegEXIFPrefix) { block.removeFirst(ImageMetadata.jpegEXIFPrefix.count) }
            return block
        }
        return nil
    }

    /// A `zTXt` chunk's text: its compression method (0, zlib) and the stream, inflated
    /// into at most the hex text of a block of the largest size kept.
    private static func inflated(_ rest: UnsafeRawBufferPointer) -> [UInt8]? {
        guard rest.first == 0, rest.count > 1, let input = rest.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let capacity = 2 * (ImageMetadata.maximumBlockSize + 6) + 2 * (ImageMetadata.maximumBlockSize / 36) + 64
        var text = [UInt8](repeating: 0, count: capacity)
        let written = text.withUnsafeMutableBufferPointer { out in
            cpng_inflate(input + 1, rest.count - 1, out.baseAddress, out.count)
        }
        guard written >= 0 else { return nil }
        text.removeSubrange(Int(written)...)
        return text
    }

    /// The bytes the profile text declares: after the name line, a decimal length (at most
    /// ``ImageMetadata/maximumBlockSize`` plus JPEG's prefix), then that many bytes in hex,
    /// white space anywhere between digits.
    static func decodedHex(_ text: [UInt8]) -> [UInt8]? {
        let whiteSpace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
        var at = 0
        func skipSpace() { while at < text.count, whiteSpace.contains(text[at]) { at += 1 } }
        skipSpace()
        while at < text.count, text[at] != 0x0A { at += 1 }   // the profile's name
        skipSpace()
        var length = 0
        while at < text.count, (0x30...0x39).contains(text[at]) {
            length = length * 10 + Int(text[at] - 0x30)
            guard length <= ImageMetadata.maximumBlockSize + 6 else { return nil }
            at += 1
        }
        guard length > 0 else { return nil }
        var block: [UInt8] = []
        block.reserveCapacity(length)
        var high: UInt8?
        while block.count < length, at < text.count {
            let byte = text[at]
            at += 1
            guard let digit = byte.hexDigitValue else {
                if whiteSpace.contains(byte) { continue }
                return nil
            }
            if let first = high {
                block.append(first << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        return block.count == length ? block : nil
    }
}
