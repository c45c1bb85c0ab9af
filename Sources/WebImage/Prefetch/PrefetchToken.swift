import Foundation

/// The handle on one list given to ``Prefetcher/prefetch(urls:options:context:progress:completion:)``:
/// SDWebImage's `SDWebImagePrefetchToken`.
///
/// Each list has its own token, counters and callbacks; cancelling one list leaves the
/// others running. Thread-safe; cancelling twice, or after the list finished, does nothing.
///
/// ```swift
/// let token = prefetcher.prefetch(urls: urls) { finished, skipped in print(finished, skipped) }
/// token.cancel()   // the URLs not loaded yet count as skipped; completion runs once
/// ```
public final class PrefetchToken: Sendable {
    /// The URLs of the list, in the order given.
    public let urls: [URL]
    let id: UInt64
    private let prefetcher: Prefetcher

    init(urls: [URL], id: UInt64, prefetcher: Prefetcher) {
        self.urls = urls
        self.id = id
        self.prefetcher = prefetcher
    }

    /// Stops the list: queued URLs are dropped, running loads are cancelled, and the
    /// completion is called (once) with every URL not yet finished counted as skipped.
    public func cancel() {
        prefetcher.cancel(listID: id)
    }
}
