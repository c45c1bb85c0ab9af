import Foundation
import NIOHTTP1

/// The HTTP request the downloader is about to send, as a ``RequestModifier`` sees it.
///
/// It starts as a `GET` of the URL with the downloader's headers (``Downloader/Configuration/httpHeaders``
/// plus those set at run time); a modifier may change any field.
///
/// ```swift
/// let modifier = RequestModifier { request in
///     var request = request
///     request.headers.replaceOrAdd(name: "X-Token", value: token)
///     return request
/// }
/// ```
public struct DownloadRequest: Sendable {
    /// Where the request goes. Only `http` and `https` are sent.
    public var url: URL
    /// The HTTP method; `GET` unless a modifier changes it.
    public var method: HTTPMethod
    /// The request headers.
    public var headers: HTTPHeaders
    /// A body to send, for the rare image service that wants one.
    public var body: Data?

    /// Creates a request.
    public init(url: URL, method: HTTPMethod = .GET, headers: HTTPHeaders = HTTPHeaders(), body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

/// The HTTP response head the downloader received, as a ``ResponseModifier`` and the
/// response checks see it.
///
/// ```swift
/// let modifier = ResponseModifier { response in
///     var response = response
///     response.headers.replaceOrAdd(name: "Content-Type", value: "image/png")
///     return response
/// }
/// ```
public struct DownloadResponse: Sendable {
    /// The URL that answered (the last of a redirect chain).
    public var url: URL
    /// The status code.
    public var statusCode: Int
    /// The response headers.
    public var headers: HTTPHeaders

    /// Creates a response head.
    public init(url: URL, statusCode: Int, headers: HTTPHeaders = HTTPHeaders()) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
    }

    /// The media type of `Content-Type` without parameters, lowercased (`image/png`), or
    /// `nil` when the header is missing.
    public var mimeType: String? {
        guard let value = headers.first(name: "Content-Type") else { return nil }
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(value)
        let trimmed = Self.trimmingSpaces(type).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The announced body length (`Content-Length`), or `nil` when absent or malformed.
    public var expectedContentLength: Int? {
        guard let value = headers.first(name: "Content-Length"),
              let length = Int(Self.trimmingSpaces(Substring(value))), length >= 0
        else { return nil }
        return length
    }

    /// `text` without leading and trailing spaces and tabs (HTTP's optional whitespace).
    /// Runs for every response, so it scans bytes: Foundation's trimming bridges through
    /// `NSString` on Linux, and a scan by `Character` pays for grapheme breaking. The
    /// bytes kept start and end on whole characters: a space is never inside one.
    private static func trimmingSpaces(_ text: Substring) -> Substring {
        let bytes = text.utf8
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return Substring(bytes[first...last])
    }
}
