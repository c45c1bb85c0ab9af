import Foundation

/// Something that loads images by URL through caches and loaders: what ``ImageManager``
/// does, as a protocol so the prefetcher and the binding layer can be given any manager.
///
/// Implementations are thread-safe. The callback form calls `completion` exactly once
/// (twice only with `.refreshCached` when the image changed, as SDWebImage does). A
/// manager need only write the callback form and ``cacheKey(for:context:)``: the `async`
/// form has a default built on the callback form.
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
    ) async throws(WebImageError) -> ImageLoadResult

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

extension ImageManaging {
    /// The `async` form for a manager that writes only the callback form: starts a callback
    /// load and returns its first result; cancelling the calling task cancels the returned
    /// operation. With `.refreshCached` the first result is the cached image when there is
    /// one (``ImageManager`` implements its own `async` form, which returns the fresh one).
    public func loadImage(
        with url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?
    ) async throws(WebImageError) -> ImageLoadResult {
        let holder = PendingCancellation()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<ImageLoadResult, WebImageError>, Never>) in
                // Only the first result resumes; a refresh's second one is dropped.
                let once = CompletionOnce { continuation.resume(returning: $0) }
                let operation = loadImage(with: url, options: options, context: context, progress: progress) { once.final($0) }
                holder.store { operation.cancel() }
            }
        } onCancel: {
            holder.cancel()
        }
        return try result.get()
    }
}
