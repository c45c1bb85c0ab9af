import Foundation

/// One caller's handle on a download; cancelling it ends only that caller's load.
///
/// Every call to ``Downloader/downloadImage(with:options:progress:completion:)`` returns its
/// own token, even when it shares a network request with other callers. ``cancel()`` calls
/// this caller's completion with ``WebImageError/cancelled`` (unless it already had its
/// result) and stops the request only when no other caller still waits for it.
/// Thread-safe; cancelling twice does nothing the second time.
///
/// ```swift
/// let token = downloader.downloadImage(with: url) { result in print(result) }
/// token?.cancel()
/// ```
public final class DownloadToken: Sendable {
    /// The URL this token's caller asked for.
    public let url: URL
    let id: Int
    let operation: DownloadOperation
    private let downloader: Downloader

    init(url: URL, id: Int, operation: DownloadOperation, downloader: Downloader) {
        self.url = url
        self.id = id
        self.operation = operation
        self.downloader = downloader
    }

    /// Ends this caller's load with ``WebImageError/cancelled``.
    public func cancel() {
        downloader.cancel(self)
    }
}
