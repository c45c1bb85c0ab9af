import Foundation

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
