import Foundation

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
