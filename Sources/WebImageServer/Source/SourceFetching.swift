import Foundation
import WebImage

/// Where the server gets a source image's bytes: the seam a source policy (allow-lists,
/// address checks) or another origin (object storage, a local folder) plugs into.
///
/// The server calls ``fetch(_:)`` once per request that misses the result cache, under the
/// download time-out: an implementation should stop promptly when its task is cancelled.
/// Implementations must be thread-safe.
///
/// ```swift
/// struct Folder: SourceFetching {
///     func fetch(_ url: URL) async throws(ImageServerError) -> Data { ... }
/// }
/// ```
public protocol SourceFetching: Sendable {
    /// The bytes of the image at `url`.
    /// - Throws: ``ImageServerError``: 404 for a missing source, 413 over the byte limit,
    ///   502 when the origin fails.
    func fetch(_ url: URL) async throws(ImageServerError) -> Data
}

/// Fetches sources with the library's ``Downloader``: any number of concurrent requests
/// for one source share one origin fetch, and the body is refused past the byte limit
/// (from `Content-Length` before the body, or as it grows).
///
/// It fetches any URL from any address: the server's default is the
/// ``GuardedSourceFetcher``; use this one only behind a policy of your own.
public struct DownloaderSourceFetcher: SourceFetching {
    /// The downloader; its configuration carries the byte limit and the time-outs.
    public let downloader: Downloader

    /// Creates a fetcher over `downloader`.
    public init(downloader: Downloader) {
        self.downloader = downloader
    }

    /// A fetcher whose downloader refuses bodies over `maxBytes` and gives up on a
    /// connection idle for `timeout`.
    public init(maxBytes: Int, timeout: Duration) {
        var configuration = Downloader.Configuration()
        configuration.maximumResponseSize = maxBytes
        configuration.timeout = timeout
        configuration.maxConcurrentDownloads = Self.maxConcurrentDownloads
        self.init(downloader: Downloader(config: configuration))
    }

    /// The server's job queue already bounds fetches to its workers; the downloader's own
    /// limit (6 by default) sits above any usual worker count so it never queues them again
    /// (the server raises it to its worker count past 64).
    public static let maxConcurrentDownloads = 64

    public func fetch(_ url: URL) async throws(ImageServerError) -> Data {
        do {
            return try await downloader.loadData(from: url).data
        } catch {
            throw .fetching(error)
        }
    }
}
