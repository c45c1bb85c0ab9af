/// How a prefetched list ended: what ``Prefetcher/prefetch(urls:options:context:progress:)``
/// returns and the completion handler receives.
///
/// Counts follow SDWebImage: `finished` counts every URL the list is done with, loaded or
/// not, and `skipped` those among them that failed or were cancelled, so a list that ran to
/// its end (or was cancelled) has `finished == total`.
///
/// ```swift
/// let result = await prefetcher.prefetch(urls: urls)
/// print("\(result.loaded) loaded, \(result.skipped) skipped")
/// ```
public struct PrefetchResult: Sendable, Equatable {
    /// URLs the list is done with (loaded, failed or cancelled).
    public var finished: Int
    /// URLs that failed or were cancelled.
    public var skipped: Int
    /// URLs in the list.
    public var total: Int

    /// Creates a result.
    public init(finished: Int, skipped: Int, total: Int) {
        self.finished = finished
        self.skipped = skipped
        self.total = total
    }

    /// URLs whose image was loaded (from a cache or the network).
    public var loaded: Int { finished - skipped }
}
