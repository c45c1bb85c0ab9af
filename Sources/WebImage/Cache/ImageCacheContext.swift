/// Per-call settings of a cache query or store: the cache's part of SDWebImage's
/// `SDWebImageContext` (and of the manager's `ImageContext`, which maps onto it).
///
/// ```swift
/// var context = ImageCacheContext()
/// context.coderOptions.thumbnailPixelSize = ImageSize(width: 128, height: 128)
/// let thumb = try await cache.image(forKey: key, context: context)
/// ```
public struct ImageCacheContext: Sendable {
    /// Which levels a query looks in. Default ``ImageCacheType/all``.
    public var queryCacheType: ImageCacheType = .all
    /// Which levels a disk hit is stored back into: with memory included (the default,
    /// ``ImageCacheType/all``) a decoded disk hit fills the memory cache.
    public var storeCacheType: ImageCacheType = .all
    /// How disk hits are decoded: thumbnail size, scale-down limit, scale factor, first
    /// frame only, pixel limit. A thumbnail is kept in memory under
    /// ``ImageCacheKey/thumbnailed(_:pixelSize:preserveAspectRatio:)`` of the key, never
    /// under the full image's key. Also the encode options when a store has to encode.
    public var coderOptions = ImageCoderOptions()
    /// The coder for this call instead of the cache's. Default `nil`.
    public var coder: (any ImageCoder)?
    /// Chooses the bytes a store writes to disk. Default `nil`: the given data, else an
    /// encoding of the image.
    public var cacheSerializer: (any CacheSerializer)?

    /// The defaults listed on each property.
    public init() {}

    /// The key the image for `key` has in memory under these settings.
    func memoryKey(for key: String) -> String {
        guard let size = coderOptions.thumbnailPixelSize, size.pixelCount > 0 else { return key }
        return ImageCacheKey.thumbnailed(key, pixelSize: size, preserveAspectRatio: coderOptions.preserveAspectRatio)
    }
}
