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
