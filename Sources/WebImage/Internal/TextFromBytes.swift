// Bytes read as text, the two ways several folders need: ASCII hexadecimal digits (URL
// percent-escapes, signatures, hex-encoded profiles) and the NUL-terminated text C
// libraries write into fixed-size buffers.

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
