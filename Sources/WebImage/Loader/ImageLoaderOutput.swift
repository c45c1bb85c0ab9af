import Foundation

/// What an ``ImageLoader`` hands back: the decoded image, the bytes it came from, and
/// where they were found.
///
/// It is the loader's output, before the manager transforms and caches it; the manager's
/// answer to a caller is ``ImageLoadResult``. A plain value, safe to share between tasks.
///
/// ```swift
/// let result = try await Downloader.shared.load(url, options: .init(), progress: nil)
/// cache.store(result.image, data: result.data, forKey: url.absoluteString)
/// ```
public struct ImageLoaderOutput: Sendable {
    /// The image, decoded with the caller's ``DownloadRequestOptions/decodeOptions``.
    public var image: Image
    /// The bytes as received (after the decryptor, if any), for the disk cache.
    public var data: Data
    /// The URL the bytes came from: the requested one, or the last of a redirect chain.
    public var url: URL
    /// Timings and sizes of the HTTP transfer; `nil` for loaders that use no network.
    public var metrics: DownloadMetrics?
    /// The HTTP response head the bytes came with (after the response modifier): its
    /// `ETag` and `Last-Modified` headers let a cache revalidate the image later. For a
    /// 304 answering a revalidation, the 304's head. `nil` for loaders that use no network.
    public var response: DownloadResponse?

    /// Creates a result.
    public init(image: Image, data: Data, url: URL, metrics: DownloadMetrics? = nil, response: DownloadResponse? = nil) {
        self.image = image
        self.data = data
        self.url = url
        self.metrics = metrics
        self.response = response
    }
}

/// The old name of ``ImageLoaderOutput``, kept for one release: it read as a typo of
/// ``ImageLoadResult`` (the manager's result), which is a different thing.
@available(*, deprecated, renamed: "ImageLoaderOutput")
public typealias ImageLoaderResult = ImageLoaderOutput
