/// Every failure the library reports, as one typed error.
///
/// The cases mirror SDWebImage's `SDWebImageError` codes so users of SDWebImage find what
/// they know, plus the failures a server-side library must name (size limits, time-outs).
/// Every message is one line, fit for a log or a command-line error.
///
/// ```swift
/// do { _ = try CodersManager.shared.decode(data) }
/// catch WebImageError.imageTooLarge(let w, let h, _) { print("refused \(w)x\(h)") }
/// ```
public enum WebImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is missing, malformed or of a scheme no loader handles.
    case invalidURL(String)
    /// The bytes are empty, truncated, corrupt or of no known image format.
    case badImageData(String)
    /// The server answered 304 and there is no cached copy to use.
    case cacheNotModified
    /// The URL failed before for a non-transient reason and `retryFailed` was not given.
    case blackListed
    /// A request modifier refused the request, or the download could not be created.
    case invalidDownloadOperation
    /// The server's status code is not acceptable.
    case invalidDownloadStatusCode(Int)
    /// The load was cancelled.
    case cancelled
    /// A response modifier refused the response.
    case invalidDownloadResponse
    /// The response's content type is not acceptable.
    case invalidDownloadContentType(String?)
    /// The image's header declares more pixels than the configured limit; nothing was
    /// allocated for it.
    case imageTooLarge(width: Int, height: Int, limit: Int)
    /// No installed coder handles this format in this direction.
    case unsupportedFormat(ImageFormat)
    /// An encoder failed or could not meet the requested constraints.
    case encodingFailed(String)
    /// The operation took longer than its time limit.
    case timedOut
    /// A transport or file-system failure: a one-line reason and, when the failure came
    /// from another library (AsyncHTTPClient, NIO, Foundation), that library's error, so a
    /// caller can inspect it instead of parsing the reason.
    case network(String, underlying: (any Error)? = nil)
    /// A download's body (or a file, or a disk-cache entry) is larger than the configured
    /// limit, in bytes.
    case responseTooLarge(limit: Int)
    /// The image is in no cache and the load may not use the loader (`fromCacheOnly`).
    case notInCache
    /// A transformer could not produce an image from its input (a crop outside the image,
    /// a result size of zero pixels).
    case transformFailed(String)
    /// The proxy answered `407 Proxy Authentication Required`: the proxy's credentials
    /// (``Downloader/Proxy/username``) are missing or wrong.
    case proxyAuthenticationRequired
    /// A setting cannot be used: a proxy URL, a certificate or key file, an environment
    /// variable. The reason names it.
    case invalidConfiguration(String)

    /// One line naming the error and its reason, fit for a log or a command line's stderr
    /// (the CLI prints exactly this).
    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL: \(url)"
        case .badImageData(let reason): "bad image data: \(reason)"
        case .cacheNotModified: "cache not modified (304) and no cached data"
        case .blackListed: "URL is in the failed-URL list"
        case .invalidDownloadOperation: "invalid download operation"
        case .invalidDownloadStatusCode(let code): "invalid download status code \(code)"
        case .cancelled: "cancelled"
        case .invalidDownloadResponse: "invalid download response"
        case .invalidDownloadContentType(let type): "invalid download content type \(type ?? "(none)")"
        case .imageTooLarge(let w, let h, let limit): "image too large: \(w)x\(h) exceeds the limit of \(limit) pixels"
        case .unsupportedFormat(let format): "unsupported format: \(format.rawValue)"
        case .encodingFailed(let reason): "encoding failed: \(reason)"
        case .timedOut: "timed out"
        case .network(let reason, _): "network error: \(reason)"
        case .responseTooLarge(let limit): "response larger than the limit of \(limit) bytes"
        case .notInCache: "not in the cache and loading was not allowed"
        case .transformFailed(let reason): "transform failed: \(reason)"
        case .proxyAuthenticationRequired: "proxy authentication required (407): the proxy credentials are missing or wrong"
        case .invalidConfiguration(let reason): "invalid configuration: \(reason)"
        }
    }

    /// `error` as a ``WebImageError``: itself when it is one, ``cancelled`` for Swift's
    /// `CancellationError`, else ``network(_:underlying:)`` keeping it as the underlying error.
    public init(_ error: any Error) {
        if let error = error as? WebImageError {
            self = error
        } else if error is CancellationError {
            self = .cancelled
        } else {
            self = .network(String(describing: error), underlying: error)
        }
    }

    /// Equal when the cases and their values are; two ``network(_:underlying:)`` errors
    /// compare their reasons and whether both have an underlying error of the same
    /// description (an arbitrary error is not `Equatable`).
    public static func == (lhs: WebImageError, rhs: WebImageError) -> Bool {
        switch (lhs, rhs) {
        case let (.network(a, ua), .network(b, ub)):
            return a == b && ua.map { String(reflecting: $0) } == ub.map { String(reflecting: $0) }
        case let (.invalidURL(a), .invalidURL(b)), let (.badImageData(a), .badImageData(b)),
             let (.encodingFailed(a), .encodingFailed(b)), let (.transformFailed(a), .transformFailed(b)),
             let (.invalidConfiguration(a), .invalidConfiguration(b)):
            return a == b
        case let (.invalidDownloadStatusCode(a), .invalidDownloadStatusCode(b)):
            return a == b
        case let (.invalidDownloadContentType(a), .invalidDownloadContentType(b)):
            return a == b
        case let (.imageTooLarge(w1, h1, l1), .imageTooLarge(w2, h2, l2)):
            return w1 == w2 && h1 == h2 && l1 == l2
        case let (.unsupportedFormat(a), .unsupportedFormat(b)):
            return a == b
        case let (.responseTooLarge(a), .responseTooLarge(b)):
            return a == b
        case (.cacheNotModified, .cacheNotModified), (.blackListed, .blackListed),
             (.invalidDownloadOperation, .invalidDownloadOperation), (.cancelled, .cancelled),
             (.invalidDownloadResponse, .invalidDownloadResponse), (.timedOut, .timedOut),
             (.notInCache, .notInCache), (.proxyAuthenticationRequired, .proxyAuthenticationRequired):
            return true
        default:
            return false
        }
    }
}
