// Bytes read as text, and written as it, the ways several folders need: ASCII
// hexadecimal digits both ways (URL percent-escapes, signatures, hex-encoded keys, disk
// cache file names, entity tags) and the NUL-terminated text C libraries write into
// fixed-size buffers.

extension UInt8 {
    /// The value (0–15) of this byte as an ASCII hexadecimal digit, either case; `nil` for
    /// any other byte. Percent-escapes in URLs and hex-encoded keys both read digits so.
    package var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The two ASCII hexadecimal digits of this byte, high first: lowercase (hashes in
    /// file names and entity tags) or uppercase (percent-escapes, as RFC 3986 recommends).
    package func hexDigits(uppercase: Bool = false) -> (high: UInt8, low: UInt8) {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        return digits.withUTF8Buffer { ($0[Int(self >> 4)], $0[Int(self & 0x0F)]) }
    }
}

extension String {
    /// `bytes` as lowercase hexadecimal digits, two per byte (a digest's usual spelling).
    package init(hex bytes: some Sequence<UInt8>) {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            let (high, low) = byte.hexDigits()
            text.append(high)
            text.append(low)
        }
        self.init(decoding: text, as: UTF8.self)
    }
}

/// Text out of a fixed-size C character buffer: an error message a C library wrote into
/// an array we gave it, or a `char[N]` member of a C struct (imported as a tuple).
///
/// Everything before the first NUL (the whole buffer when there is none, so a message
/// that filled it is still read) is decoded as UTF-8, with invalid bytes replaced; unlike
/// `String(cString:)`, nothing is read past the buffer's end.
///
/// ```swift
/// let reason = String(cBuffer: message)                                   // [CChar]
/// let name = withUnsafeBytes(of: entry.pointee.d_name, String.init(cBuffer:))
/// ```
extension String {
    /// The text before the first NUL in `bytes`.
    init(cBuffer bytes: UnsafeRawBufferPointer) {
        self.init(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The text before the first NUL in `characters`.
    init(cBuffer characters: [CChar]) {
        self = characters.withUnsafeBytes { String(cBuffer: $0) }
    }
}
