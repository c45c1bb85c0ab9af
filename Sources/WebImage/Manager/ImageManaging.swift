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

    /// Puts the original bytes of `url` in the disk cache without decoding them, calling
    /// `completion` when done; the returned operation cancels the load. What
    /// ``Prefetcher`` calls for the ``Prefetcher/Destination/diskCache`` destination.
    /// ``ImageManager`` streams the download into the cache entry; the default (for a
    /// manager that does not) loads and decodes through
    /// ``loadImage(with:options:context:progress:completion:)``.
    @discardableResult
    func loadOriginalData(
        with url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<OriginalDataResult, WebImageError>) -> Void
    ) -> ImageLoadOperation
}

extension ImageManaging {
    /// The decoding fallback: a plain ``loadImage(with:options:context:progress:completion:)``
    /// whose result says only where the image came from and how many bytes it had.
    @discardableResult
    public func loadOriginalData(
        with url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<OriginalDataResult, WebImageError>) -> Void
    ) -> ImageLoadOperation {
        loadImage(with: url, options: options, context: context, progress: progress) { result in
            completion(result.map { OriginalDataResult(url: $0.url, cacheType: $0.cacheType, byteCount: $0.data?.count, fileURL: nil) })
        }
    }

    /// The `async` form for a manager that writes only the callback form: starts a callback
    /// load and returns its first result; cancelling the calling task cancels the returned
    /// operation. With `.refreshCached` the first result is the cached image when there is
    /// one (``ImageManager`` implements its own `async` form, which returns the fresh one).
    /// From a task already cancelled it throws ``WebImageError/cancelled`` without starting.
    public func loadImage(
        with url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?
    ) async throws(WebImageError) -> ImageLoadResult {
        guard !Task.isCancelled else { throw .cancelled }
        return try await PendingCancellation.awaitCallback { completion in
            // Only the first result is returned; a refresh's second one is dropped.
            let once = CompletionOnce(completion)
            let operation = loadImage(with: url, options: options, context: context, progress: progress) { once.final($0) }
            return { operation.cancel() }
        }.get()
    }
}

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
    /// The animation, when the load asked for frames on demand
    /// (``ImageContext/decodesFramesOnDemand``) and the image is animated; ``image`` is
    /// then its poster frame.
    public var animatedImage: AnimatedImage? { image.animatedImage }

    /// Creates a result.
    public init(image: Image, data: Data?, cacheType: ImageCacheType, url: URL) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
    }
}

/// A running load that can be cancelled: what the callback form of
/// ``ImageManaging/loadImage(with:options:context:progress:completion:)`` returns.
///
/// Thread-safe. Cancelling is idempotent; the cancel action runs once, on the caller's thread.
///
/// ```swift
/// let operation = manager.loadImage(with: url, options: [], context: ImageContext(), progress: nil) { _ in }
/// operation.cancel()
/// ```
public final class ImageLoadOperation: Sendable {
    private let state: LockedValue<(cancelled: Bool, action: (@Sendable () -> Void)?)>

    /// Creates an operation whose ``cancel()`` runs `onCancel` once.
    public init(onCancel: @escaping @Sendable () -> Void) {
        state = LockedValue((false, onCancel))
    }

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Cancels the load; later calls do nothing.
    public func cancel() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            defer { state.action = nil }
            return state.action
        }
        action?()
    }
}
