import Foundation

/// Something that caches images by key (SDWebImage's `SDImageCache` protocol):
/// ``ImageCache`` is the built-in one, ``CachesManager`` chains several.
///
/// The manager talks to its cache only through this protocol, so a user can plug in
/// their own (a shared Redis store, a read-only bundle). Implementations must be
/// thread-safe; every method may be called concurrently.
///
/// ```swift
/// let cache: any ImageCaching = CachesManager.shared
/// let result = try await cache.image(forKey: key, options: [], context: ImageCacheContext())
/// ```
public protocol ImageCaching: Sendable {
    /// Looks `key` up in the levels `context.queryCacheType` selects. Throws only
    /// ``WebImageError/cancelled``, when the calling task is cancelled; a miss or an
    /// entry that does not decode is a result with no image.
    func image(forKey key: String, options: ImageCacheOptions, context: ImageCacheContext) async throws -> ImageCacheQueryResult

    /// Stores `image` and/or its encoded `data` in the levels `cacheType` selects.
    func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType, context: ImageCacheContext) async throws

    /// Removes `key` from the levels `cacheType` selects.
    func removeImage(forKey key: String, cacheType: ImageCacheType) async

    /// Which of the levels `cacheType` selects hold `key`: the first found, memory before
    /// disk, or ``ImageCacheType/none``.
    func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType

    /// Empties the levels `cacheType` selects.
    func clear(_ cacheType: ImageCacheType) async
}
