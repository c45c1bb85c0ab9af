import Foundation

/// Something that fetches the bytes a URL points to and decodes them into an ``Image``.
///
/// Loaders are the last step of a load, after every cache missed: ``Downloader`` handles
/// `http` and `https`, ``FileURLLoader`` `file`, ``DataURLLoader`` `data`, and
/// ``LoadersManager`` picks among them (and any a user adds). Implementations must be
/// thread-safe; `load` may be called from many tasks at once, and cancelling the calling
/// task must end the load promptly with ``WebImageError/cancelled``.
///
/// ```swift
/// let loader: any ImageLoader = LoadersManager.shared
/// let result = try await loader.load(url, options: DownloadRequestOptions(), progress: nil)
/// print(result.image.size, result.data.count)
/// ```
public protocol ImageLoader: Sendable {
    /// Whether this loader handles `url` (usually a check of its scheme; cheap).
    func canLoad(_ url: URL) -> Bool

    /// Loads and decodes the image at `url`; every failure is a ``WebImageError`` (a
    /// loader wraps a foreign error with ``WebImageError/init(_:)``).
    ///
    /// `progress`, when given, is called zero or more times before the result, never after it.
    func load(
        _ url: URL,
        options: DownloadRequestOptions,
        progress: LoadProgressHandler?
    ) async throws(WebImageError) -> ImageLoaderOutput
}

/// Receives progress reports during a load; see ``LoadProgress``. Called from an arbitrary
/// thread, never concurrently with itself for one load.
public typealias LoadProgressHandler = @Sendable (LoadProgress) -> Void

/// What an ``ImageLoader`` hands back: the decoded image, the bytes it came from, and
/// where they were found.
///
/// It is the loader's output, before the manager transforms and caches it; the manager's
/// answer to a caller is ``ImageLoadResult``. A plain value, safe to share between tasks.
///
/// ```swift
/// let result = try await Downloader.shared.load(url, options: .init(), progress: nil)
/// try await cache.store(result.image, data: result.data, forKey: url.absoluteString)
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

/// One progress report of a load: how many bytes arrived, how many are expected, and,
/// for progressive loads, the partial image decoded so far.
///
/// The downloader reports `(0, -1)` when a request starts, `(0, expected)` when the
/// response arrives, then one report per chunk (throttled by
/// ``Downloader/Configuration/minimumProgressInterval``), always including the final one, where
/// `receivedSize == expectedSize`.
///
/// ```swift
/// let result = try await Downloader.shared.load(url, options: .init()) { p in
///     print(p.receivedSize, "of", p.expectedSize)
/// }
/// ```
public struct LoadProgress: Sendable {
    /// Bytes of the body received so far.
    public var receivedSize: Int
    /// The body's announced length, or -1 when the server did not announce one (yet).
    public var expectedSize: Int
    /// The URL being loaded (the one asked for, before redirects).
    public var url: URL
    /// With ``DownloadRequestOptions/progressiveLoad``, a partial image of the bytes so far
    /// (``Image/isIncremental`` is `true`); `nil` otherwise or when none could be made yet.
    public var partialImage: Image?

    /// Creates a report.
    public init(receivedSize: Int, expectedSize: Int, url: URL, partialImage: Image? = nil) {
        self.receivedSize = receivedSize
        self.expectedSize = expectedSize
        self.url = url
        self.partialImage = partialImage
    }

    /// The fraction done in 0...1, or `nil` while the expected size is unknown.
    public var fractionCompleted: Double? {
        guard expectedSize > 0 else { return nil }
        return min(1, Double(receivedSize) / Double(expectedSize))
    }
}
