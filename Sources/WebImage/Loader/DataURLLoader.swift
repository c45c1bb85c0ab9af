import Foundation

/// Loads images embedded in `data:` URLs (RFC 2397), base64 or percent-encoded.
///
/// `data:image/png;base64,iVBORw0...` and `data:image/svg+xml,%3Csvg...` both work; the
/// media type is ignored (the bytes are sniffed, as everywhere else). A payload larger
/// than ``maximumSize`` is refused before the decoder sees it; decoding the URL's text
/// allocates at most the text's own size (a payload is never longer than its encoding).
/// Thread-safe.
///
/// ```swift
/// let result = try await DataURLLoader().load(dataURL, options: .init(), progress: nil)
/// ```
public struct DataURLLoader: ImageLoader {
    /// The coder that decodes the bytes.
    public let coder: any ImageCoder
    /// The largest payload accepted, in bytes; a larger one fails with
    /// ``WebImageError/responseTooLarge(limit:)``. Default 100 MiB, as for files.
    public let maximumSize: Int

    /// Creates a loader that decodes with `coder` (default the shared coders manager).
    public init(coder: any ImageCoder = CodersManager.shared, maximumSize: Int = 100 * 1024 * 1024) {
        self.coder = coder
        self.maximumSize = max(0, maximumSize)
    }

    /// Whether `url`'s scheme is `data`.
    public func canLoad(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "data"
    }

    public func load(_ url: URL, options: DownloadRequestOptions, progress: LoadProgressHandler?) async throws(WebImageError) -> ImageLoaderOutput {
        guard !Task.isCancelled else { throw .cancelled }
        guard canLoad(url) else { throw .invalidURL(url.absoluteString) }
        let payload = try Self.payload(of: url.absoluteString, limit: maximumSize)
        let data = try options.decryptor.map { decryptor throws(WebImageError) in try decryptor.decryptedOrThrow(payload) } ?? payload
        progress?(LoadProgress(receivedSize: data.count, expectedSize: data.count, url: url))
        do {
            // A decode is blocking work: off Swift's cooperative pool.
            let coder = coder, decodeOptions = options.decodeOptions
            let image = try await BlockingIO.run { try coder.decode(data, options: decodeOptions) }
            try Task.checkCancellation()
            return ImageLoaderOutput(image: image, data: data, url: url)
        } catch {
            throw WebImageError(error)
        }
    }

    /// The bytes a `data:` URL carries. Throws ``WebImageError/invalidURL(_:)`` for a URL
    /// without a comma or with malformed base64 or percent escapes, and
    /// ``WebImageError/responseTooLarge(limit:)`` for a payload over `limit` bytes (a
    /// base64 payload is measured before it is decoded).
    package static func payload(of string: String, limit: Int = .max) throws(WebImageError) -> Data {
        guard let colon = string.firstIndex(of: ":"), let comma = string[colon...].firstIndex(of: ",") else {
            throw WebImageError.invalidURL("data URL without a comma")
        }
        let header = string[string.index(after: colon)..<comma].lowercased()
        let body = Substring(string[string.index(after: comma)...])
        // Refused before a copy when even the shortest decoding (every byte written as a
        // three-character escape) is over the limit.
        if header.split(separator: ";").last != "base64", body.utf8.count / 3 > limit {
            throw WebImageError.responseTooLarge(limit: limit)
        }
        guard let raw = percentDecoded(body) else { throw WebImageError.invalidURL("malformed percent escape in data URL") }
        guard header.split(separator: ";").last == "base64" else {
            guard raw.count <= limit else { throw WebImageError.responseTooLarge(limit: limit) }
            return raw
        }
        // Whitespace (line breaks in long URLs) is allowed; any other stray byte is an error.
        let compact = raw.filter { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
        // Every 4 characters carry 3 bytes, less at most 2 of padding.
        guard compact.count / 4 * 3 - 2 <= limit else { throw WebImageError.responseTooLarge(limit: limit) }
        guard let decoded = Data(base64Encoded: compact) else {
            throw WebImageError.invalidURL("malformed base64 in data URL")
        }
        guard decoded.count <= limit else { throw WebImageError.responseTooLarge(limit: limit) }
        return decoded
    }

    /// Percent-decodes to raw bytes (which need not be UTF-8); `nil` for a bad escape.
    private static func percentDecoded(_ text: Substring) -> Data? {
        var bytes = Data()
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next()?.hexDigitValue, let low = iterator.next()?.hexDigitValue else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
