import Foundation
import NIOHTTP1

/// Changes a request before it is sent (SDWebImage's `SDWebImageDownloaderRequestModifier`).
///
/// Returning `nil` refuses the request: the download fails with
/// ``WebImageError/invalidDownloadOperation`` and nothing is sent. The closure runs once
/// per network request, on an arbitrary thread, so it must be thread-safe.
///
/// ```swift
/// var options = DownloadRequestOptions()
/// options.requestModifier = .headers(["Authorization": "Bearer \(token)"])
/// ```
public struct RequestModifier: Sendable {
    private let body: @Sendable (DownloadRequest) -> DownloadRequest?

    /// Creates a modifier from a closure.
    public init(_ modify: @escaping @Sendable (DownloadRequest) -> DownloadRequest?) {
        body = modify
    }

    /// A modifier that sets (replacing) each of `headers`.
    public static func headers(_ headers: [String: String]) -> RequestModifier {
        RequestModifier { request in
            var request = request
            for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
            return request
        }
    }

    /// A modifier that changes the method and body (for example a `POST` image service).
    public static func method(_ method: HTTPMethod, body: Data?) -> RequestModifier {
        RequestModifier { request in
            var request = request
            request.method = method
            request.body = body
            return request
        }
    }

    /// Applies the modifier; `nil` means the request is refused.
    public func modified(_ request: DownloadRequest) -> DownloadRequest? {
        body(request)
    }
}
