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
