import Foundation

/// What ``ImageManaging/loadOriginalData(with:options:context:progress:completion:)`` gives back: the
/// original bytes of a URL are in the disk cache, and where they came from.
///
/// No image: nothing was decoded. The bytes are not in memory either; read them from
/// ``fileURL`` (or the cache) when needed.
///
/// ```swift
/// let stored = try await ImageManager.shared.loadOriginalData(with: url)
/// print(stored.cacheType, stored.byteCount, stored.fileURL?.path ?? "-")
/// ```
public struct OriginalDataResult: Sendable {
    /// The URL that was loaded.
    public var url: URL
    /// `.disk` when the bytes were on disk already, `.none` when they were downloaded.
    public var cacheType: ImageCacheType
    /// The length of the original bytes; `nil` when not known (a disk hit in a cache other
    /// than ``ImageCache``).
    public var byteCount: Int?
    /// The disk-cache entry holding them, when the cache is a file-backed ``ImageCache``.
    public var fileURL: URL?

    /// Creates a result.
    public init(url: URL, cacheType: ImageCacheType, byteCount: Int?, fileURL: URL?) {
        self.url = url
        self.cacheType = cacheType
        self.byteCount = byteCount
        self.fileURL = fileURL
    }
}
