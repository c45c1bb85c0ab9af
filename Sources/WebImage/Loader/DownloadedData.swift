import Foundation

/// The undecoded bytes of a download, from ``Downloader/downloadData(with:options:progress:completion:)``.
///
/// ```swift
/// let raw = try await Downloader.shared.loadData(from: url)
/// try raw.data.write(to: file)
/// ```
public struct DownloadedData: Sendable {
    /// The body as received (after the decryptor, if any).
    public var data: Data
    /// The URL the bytes came from (the last of a redirect chain).
    public var url: URL
    /// Timings and sizes of the transfer.
    public var metrics: DownloadMetrics
    /// The HTTP response head the bytes came with (after the response modifier), with
    /// the `ETag` and `Last-Modified` a cache needs to revalidate them later; for a 304
    /// answering a revalidation, the 304's head. `nil` only when built without one.
    public var response: DownloadResponse?

    /// Creates a value.
    public init(data: Data, url: URL, metrics: DownloadMetrics, response: DownloadResponse? = nil) {
        self.data = data
        self.url = url
        self.metrics = metrics
        self.response = response
    }
}
