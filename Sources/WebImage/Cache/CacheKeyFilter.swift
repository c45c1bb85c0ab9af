import Foundation

/// Turns a URL into the key it is cached under (SDWebImage's `SDWebImageCacheKeyFilter`):
/// for example drop a signature query that changes on every request.
///
/// Returning `nil` means "do not cache this URL". Implementations must be thread-safe.
///
/// ```swift
/// let filter = BlockCacheKeyFilter { url in
///     var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
///     parts?.query = nil
///     return parts?.string
/// }
/// ```
public protocol CacheKeyFilter: Sendable {
    /// The cache key for `url`, or `nil` to skip caching.
    func cacheKey(for url: URL) -> String?
}

/// A ``CacheKeyFilter`` made from a closure.
public struct BlockCacheKeyFilter: CacheKeyFilter {
    private let block: @Sendable (URL) -> String?

    /// Creates a filter that calls `block(url)`.
    public init(_ block: @escaping @Sendable (URL) -> String?) {
        self.block = block
    }

    public func cacheKey(for url: URL) -> String? {
        block(url)
    }
}
