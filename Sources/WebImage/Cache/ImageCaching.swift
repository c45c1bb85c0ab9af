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

/// Which level of the cache an image came from, or which levels an operation touches
/// (SDWebImage's `SDImageCacheType`).
///
/// As a result it names the source (`.none` for a miss); as an argument to store, remove,
/// contains or clear it selects the levels.
///
/// ```swift
/// let result = try await ImageCache.shared.image(forKey: key)
/// if result.cacheType == .memory { print("no disk access") }
/// ```
public enum ImageCacheType: String, Sendable, CaseIterable {
    /// Neither level: a miss, or "do not cache".
    case none
    /// The disk cache only.
    case disk
    /// The memory cache only.
    case memory
    /// Both levels.
    case all

    /// Whether this selection includes the memory level.
    public var includesMemory: Bool { self == .memory || self == .all }
    /// Whether this selection includes the disk level.
    public var includesDisk: Bool { self == .disk || self == .all }
}

/// What a cache query found: the image, the bytes when they were read, and the level it
/// came from.
///
/// ```swift
/// let result = try await ImageCache.shared.image(forKey: key)
/// if let image = result.image { print(result.cacheType, image.size) }
/// ```
public struct ImageCacheQueryResult: Sendable {
    /// The image, or `nil` on a miss (or when the disk bytes would not decode).
    public var image: Image?
    /// The disk bytes, when the query read them (a disk hit, or a memory hit with
    /// ``ImageCacheOptions/queryMemoryData``). Also set when the bytes were found but did
    /// not decode, so a caller can inspect them.
    public var data: Data?
    /// The extended data stored with the disk entry, when the disk was read.
    public var extendedData: Data?
    /// Where ``image`` came from; ``ImageCacheType/none`` when there is no image.
    public var cacheType: ImageCacheType

    /// Creates a result.
    public init(image: Image?, data: Data? = nil, extendedData: Data? = nil, cacheType: ImageCacheType) {
        self.image = image
        self.data = data
        self.extendedData = extendedData
        self.cacheType = image == nil ? .none : cacheType
    }

    /// A miss.
    public static let miss = ImageCacheQueryResult(image: nil, cacheType: .none)
}
