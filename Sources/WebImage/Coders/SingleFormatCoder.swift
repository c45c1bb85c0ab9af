import Foundation

/// A built-in coder for exactly one ``ImageFormat`` that ``ImageFormat/init(sniffing:)``
/// recognises by its magic bytes (BMP, GIF, JPEG, PNG, TIFF, WebP).
///
/// Those coders answer ``ImageCoder/canDecode(_:)`` and ``ImageCoder/canEncode(to:)`` the
/// same way and refuse empty data and a foreign output format with the same errors; this
/// protocol says it once, so a coder only names its format. Internal: users write their
/// own ``ImageCoder``s, whose formats need not be ones the sniffer knows.
protocol SingleFormatCoder: ImageCoder {
    /// The one format this coder reads (and writes, unless it is a ``DecodeOnlyCoder``).
    static var format: ImageFormat { get }
}

extension SingleFormatCoder {
    /// Whether `data` starts with this coder's format's magic bytes (a cheap check that
    /// does not validate the rest of the file).
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat(sniffing: data) == Self.format
    }

    /// Whether `format` is this coder's one format.
    public func canEncode(to format: ImageFormat) -> Bool {
        format == Self.format
    }

    /// Runs `body` on the bytes of `data`, after refusing empty data (every coder reports
    /// it as ``WebImageError/badImageData(_:)`` "empty data") and, when `unrecognised` is
    /// given, data that does not sniff as this format (with that message), for coders
    /// whose library would give a less helpful error for foreign bytes.
    func withCheckedBytes<Result>(
        of data: Data,
        unrecognised: String? = nil,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        guard !data.isEmpty else { throw WebImageError.badImageData("empty data") }
        if let unrecognised, !canDecode(data) { throw WebImageError.badImageData(unrecognised) }
        return try data.withUnsafeBytes(body)
    }

    /// Throws ``WebImageError/unsupportedFormat(_:)`` unless `format` is this coder's:
    /// the first line of every `encode(_:as:options:)`.
    func checkEncodable(_ format: ImageFormat) throws {
        guard canEncode(to: format) else { throw WebImageError.unsupportedFormat(format) }
    }
}

/// A ``SingleFormatCoder`` that only decodes (TIFF, SVG, PDF): it says "no" to every
/// encode, so ``CodersManager`` never picks it for one, and an `encode` called on it
/// directly throws ``WebImageError/unsupportedFormat(_:)``. Written once here instead of in
/// each such coder.
protocol DecodeOnlyCoder: SingleFormatCoder {}

extension DecodeOnlyCoder {
    /// Always `false`: this coder only decodes.
    public func canEncode(to format: ImageFormat) -> Bool {
        false
    }

    /// Always throws ``WebImageError/unsupportedFormat(_:)``: this coder only decodes.
    public func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
        throw WebImageError.unsupportedFormat(format)
    }
}
