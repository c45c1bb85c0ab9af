import Foundation

/// What a finished load gives back: the image, where it came from, and its bytes when known.
///
/// ```swift
/// let result = try await ImageManager.shared.loadImage(with: url)
/// print(result.cacheType, result.image.size)
/// ```
public struct ImageLoadResult: Sendable {
    /// The decoded (and transformed) image.
    public var image: Image
    /// The encoded bytes, when the load had them (downloads, disk hits, `queryMemoryData`).
    public var data: Data?
    /// Where the image came from: `.none` for the loader, `.disk` or `.memory` for the cache.
    public var cacheType: ImageCacheType
    /// The URL that was loaded.
    public var url: URL

    /// Creates a result.
    public init(image: Image, data: Data?, cacheType: ImageCacheType, url: URL) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
    }
}
