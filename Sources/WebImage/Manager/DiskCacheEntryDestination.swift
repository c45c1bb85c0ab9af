import Foundation

/// A ``DownloadDestination`` that is one ``DiskCache`` entry: a download streamed into it
/// becomes the entry for ``key`` when it completes, exactly as
/// ``DiskCache/setData(_:forKey:extendedData:)`` would have stored it, and leaves nothing
/// when it fails.
///
/// The manager's bridge between the loader and the cache (the loader knows nothing of
/// caches): ``ImageManager/loadOriginalData(with:options:context:progress:)`` hands one to
/// ``Downloader/downloadFile(with:to:options:progress:completion:)``. Thread-safe; each
/// download opens its own ``DiskCache/EntryWriter``.
///
/// ```swift
/// let destination = DiskCacheEntryDestination(cache: ImageCache.shared.diskCache, key: url.absoluteString)
/// let file = try await Downloader.shared.loadFile(from: url, to: destination)
/// ```
public final class DiskCacheEntryDestination: DownloadDestination {
    /// The cache the entry is written to.
    public let cache: DiskCache
    /// The entry's key.
    public let key: String

    /// A destination writing `key`'s entry in `cache`.
    public init(cache: DiskCache, key: String) {
        self.cache = cache
        self.key = key
    }

    /// Opens a temporary file in the cache's directory (see ``DiskCache/EntryWriter``).
    public func makeWriter() throws -> any DownloadBodyWriter {
        try cache.makeEntryWriter(forKey: key)
    }
}

/// An entry writer is exactly what a streamed download needs: append, commit (rename into
/// place), abort (unlink).
extension DiskCache.EntryWriter: DownloadBodyWriter {}
