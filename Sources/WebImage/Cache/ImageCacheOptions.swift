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
