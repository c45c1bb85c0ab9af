import Foundation

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

/// The load options a cache query honours: the cache's part of SDWebImage's
/// `SDWebImageOptions` (and of the manager's `ImageOptions`, which maps onto it).
///
/// ```swift
/// let result = try await cache.image(forKey: key, options: [.queryMemoryData])
/// ```
public struct ImageCacheOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt

    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// On a memory hit, read the disk bytes too (by default a memory hit returns no data).
    public static let queryMemoryData = ImageCacheOptions(rawValue: 1 << 0)
    /// With ``queryMemoryData``, read those bytes on the caller's thread instead of the
    /// cache's I/O queue.
    public static let queryMemoryDataSync = ImageCacheOptions(rawValue: 1 << 1)
    /// On a memory miss, read and decode the disk entry on the caller's thread instead of
    /// the cache's I/O queue. Such a query is not shared with concurrent ones.
    public static let queryDiskDataSync = ImageCacheOptions(rawValue: 1 << 2)
    /// Decode only the first frame of an animated entry, and return only the first frame
    /// of an animated memory hit. Such a decode does not fill the memory cache, so it never
    /// hides the full animation from a later query.
    public static let decodeFirstFrameOnly = ImageCacheOptions(rawValue: 1 << 3)
}

/// Chooses the bytes written to the disk cache for an image (SDWebImage's
/// `SDWebImageCacheSerializer`): for example re-encode a downloaded PNG as WebP, or
/// strip metadata.
///
/// Returning `nil` stores nothing on disk. Implementations must be thread-safe; they run
/// on the cache's I/O queue.
///
/// ```swift
/// let serializer = BlockCacheSerializer { image, data, key in
///     try? CodersManager.shared.encode(image, as: .webp)
/// }
/// ```
public protocol CacheSerializer: Sendable {
    /// The bytes to store for `image` under `key`; `originalData` is what was downloaded,
    /// if anything.
    func cacheData(for image: Image, originalData: Data?, key: String) -> Data?
}

/// A ``CacheSerializer`` made from a closure.
public struct BlockCacheSerializer: CacheSerializer {
    private let block: @Sendable (Image, Data?, String) -> Data?

    /// Creates a serializer that calls `block(image, originalData, key)`.
    public init(_ block: @escaping @Sendable (Image, Data?, String) -> Data?) {
        self.block = block
    }

    public func cacheData(for image: Image, originalData: Data?, key: String) -> Data? {
        block(image, originalData, key)
    }
}
