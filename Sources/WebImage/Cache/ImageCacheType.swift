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
