import Foundation

/// A body that a download wrote to a file instead of memory: what
/// ``Downloader/downloadFile(with:to:options:progress:completion:)`` hands back.
///
/// ```swift
/// let file = try await downloader.loadFile(from: url, to: destination)
/// print(file.fileURL.path, file.byteCount)
/// ```
public struct DownloadedFile: Sendable {
    /// The committed file (for a ``DiskCache`` destination, the cache entry).
    public var fileURL: URL
    /// The body's length in bytes.
    public var byteCount: Int
    /// The URL the bytes came from (the last of a redirect chain).
    public var url: URL
    /// Timings and sizes of the transfer.
    public var metrics: DownloadMetrics
    /// The HTTP response head the bytes came with (after the response modifier).
    public var response: DownloadResponse

    /// Creates a value.
    public init(fileURL: URL, byteCount: Int, url: URL, metrics: DownloadMetrics, response: DownloadResponse) {
        self.fileURL = fileURL
        self.byteCount = byteCount
        self.url = url
        self.metrics = metrics
        self.response = response
    }
}
