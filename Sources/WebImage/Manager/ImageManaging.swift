import Foundation

/// Something that loads images by URL through caches and loaders: what ``ImageManager``
/// does, as a protocol so the prefetcher and the binding layer can be given any manager.
///
/// Implementations are thread-safe. The callback form calls `completion` exactly once
/// (twice only with `.refreshCached` when the image changed, as SDWebImage does).
///
/// ```swift
/// let manager: any ImageManaging = ImageManager.shared
/// let result = try await manager.loadImage(with: url, options: [], context: ImageContext(), progress: nil)
/// ```
public protocol ImageManaging: Sendable {
    /// Loads the image at `url`. Cancelling the calling task cancels the load.
    func loadImage(
        with url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?
    ) async throws -> ImageLoadResult

    /// Loads the image at `url`, calling `completion` when done; the returned operation
    /// cancels the load (completion then gets ``WebImageError/cancelled``).
    @discardableResult
    func loadImage(
        with url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<ImageLoadResult, WebImageError>) -> Void
    ) -> ImageLoadOperation

    /// The cache key a load of `url` with `context` reads and writes.
    func cacheKey(for url: URL?, context: ImageContext) -> String?
}
