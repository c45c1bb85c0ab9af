import Foundation

/// Changes a response head before it is checked (SDWebImage's
/// `SDWebImageDownloaderResponseModifier`), for servers that send the wrong status or
/// content type.
///
/// Returning `nil` refuses the response: the download stops and fails with
/// ``WebImageError/invalidDownloadResponse``. Runs on an arbitrary thread.
///
/// ```swift
/// var options = DownloadRequestOptions()
/// options.responseModifier = ResponseModifier { response in
///     response.statusCode == 202 ? nil : response
/// }
/// ```
public struct ResponseModifier: Sendable {
    private let body: @Sendable (DownloadResponse) -> DownloadResponse?

    /// Creates a modifier from a closure.
    public init(_ modify: @escaping @Sendable (DownloadResponse) -> DownloadResponse?) {
        body = modify
    }

    /// Applies the modifier; `nil` means the response is refused.
    public func modified(_ response: DownloadResponse) -> DownloadResponse? {
        body(response)
    }
}
