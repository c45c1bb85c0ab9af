import Foundation

/// The two faces of a load: `async` and callback. Both run the memory lookup on the
/// caller's thread and everything else in a task the manager can cancel.
extension ImageManager {
    /// Loads the image at `url` through the caches and the loader.
    ///
    /// A memory hit returns without suspending or allocating a task. Otherwise the load
    /// runs in a task tied to the caller's: cancelling the caller cancels it (and the
    /// download, when no other caller needs it) and this call throws
    /// ``WebImageError/cancelled``. With `.refreshCached` and a cached image, the image is
    /// downloaded again and the fresh image is returned when it changed; when the server
    /// answers 304, sends the same bytes, or fails, the cached image is returned.
    public func loadImage(
        with url: URL?,
        options: ImageOptions = [],
        context: ImageContext = ImageContext(),
        progress: LoadProgressHandler? = nil
    ) async throws(WebImageError) -> ImageLoadResult {
        let (url, options, context) = try prepared(url, options: options, context: context)
        return try await loadPrepared(url, options: options, context: context, progress: progress)
    }

    /// The `async` load after ``prepared(_:options:context:)``: the options processor has
    /// run and the failed-URL set was asked. The prefetcher calls this when it has prepared
    /// the load itself, so the processor runs once per load.
    func loadPrepared(
        _ url: URL,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?
    ) async throws(WebImageError) -> ImageLoadResult {
        if let image = memoryHit(url, options: options, context: context) {
            metrics.memoryHit()
            return ImageLoadResult(image: image, data: nil, cacheType: .memory, url: url)
        }
        let plan = ImageLoadPlan(url: url, options: options, context: context, manager: self, settings: currentSettings)
        return try await tracked { () async throws(WebImageError) -> ImageLoadResult in
            switch try await self.run(plan, progress: progress, onCached: nil) {
            case .fresh(let result), .unchanged(let result): return result
            }
        }
    }

    /// Runs `body` in a task the manager tracks, so ``cancelAll()`` cancels it, and that
    /// cancelling the calling task cancels too: the `async` face of every kind of load.
    func tracked<T: Sendable>(_ body: @escaping @Sendable () async throws(WebImageError) -> T) async throws(WebImageError) -> T {
        let slot = running.register()
        let task = Task { () throws(WebImageError) -> T in
            defer { running.unregister(slot) }
            return try await body()
        }
        slot.store { task.cancel() }
        let result = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            task.cancel()
        }
        return try result.mapError { WebImageError($0) }.get()
    }

    /// Loads the image at `url`, calling `completion` exactly once (twice with
    /// `.refreshCached` when the server has a changed image: first the cached one).
    ///
    /// A memory hit calls `completion` before this returns (on `context.callbackQueue`
    /// when given); otherwise it is called from the load's task or on that queue. The
    /// returned operation cancels the load; `completion` then gets
    /// ``WebImageError/cancelled`` unless it already had its result. A failed refresh is
    /// logged, not reported a second time.
    @discardableResult
    public func loadImage(
        with url: URL?,
        options: ImageOptions = [],
        context: ImageContext = ImageContext(),
        progress: LoadProgressHandler? = nil,
        completion: @escaping @Sendable (Result<ImageLoadResult, WebImageError>) -> Void
    ) -> ImageLoadOperation {
        let prepared: (URL, ImageOptions, ImageContext)
        do {
            prepared = try self.prepared(url, options: options, context: context)
        } catch {
            Self.delivering(completion, on: context.callbackQueue)(.failure(error))
            return ImageLoadOperation {}
        }
        let (url, options, context) = prepared
        return loadPrepared(url, options: options, context: context, progress: progress, completion: completion)
    }

    /// The callback load after ``prepared(_:options:context:)`` (see the `async` form's).
    func loadPrepared(
        _ url: URL,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<ImageLoadResult, WebImageError>) -> Void
    ) -> ImageLoadOperation {
        let deliver = Self.delivering(completion, on: context.callbackQueue)
        if let image = memoryHit(url, options: options, context: context) {
            metrics.memoryHit()
            deliver(.success(ImageLoadResult(image: image, data: nil, cacheType: .memory, url: url)))
            return ImageLoadOperation {}
        }
        let plan = ImageLoadPlan(url: url, options: options, context: context, manager: self, settings: currentSettings)
        let once = CompletionOnce(deliver)
        // The final completion waits for a progress report in flight, and no report
        // starts after it (a cancel completes on the cancelling thread).
        let gate = ProgressGate()
        let slot = running.register()
        let task = Task {
            defer { running.unregister(slot) }
            let final: Result<ImageLoadResult, WebImageError>?
            do {
                let outcome = try await self.run(plan, progress: gate.guarding(progress)) { cached in once.first(.success(cached)) }
                switch outcome {
                case _ where Task.isCancelled: final = .failure(.cancelled)
                case .fresh(let result): final = .success(result)
                case .unchanged: final = nil
                }
            } catch {
                final = .failure(WebImageError(error))
            }
            gate.close { once.final(final) }
        }
        slot.store { task.cancel() }
        return ImageLoadOperation {
            task.cancel()
            gate.close { once.final(.failure(.cancelled)) }
        }
    }

    /// `completion`, called on `queue` when one is given (``ImageContext/callbackQueue``).
    static func delivering(
        _ completion: @escaping @Sendable (Result<ImageLoadResult, WebImageError>) -> Void,
        on queue: DispatchQueue?
    ) -> @Sendable (Result<ImageLoadResult, WebImageError>) -> Void {
        guard let queue else { return completion }
        return { result in queue.async { completion(result) } }
    }

    /// The image in memory for `url` under `options` and `context`, or `nil`: the
    /// synchronous part of a load, without the failed-URL check, metrics or a task.
    /// O(1); never touches the disk.
    public func cachedImage(for url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext()) -> Image? {
        guard let url else { return nil }
        return memoryHit(url, options: options.subtracting([.refreshCached, .queryMemoryData]), context: context)
    }

    /// Checks the URL, applies the options processor and the failed-URL set.
    func prepared(_ url: URL?, options: ImageOptions, context: ImageContext) throws(WebImageError) -> (URL, ImageOptions, ImageContext) {
        guard let url, !url.absoluteString.isEmpty else {
            metrics.failed(.invalidURL(""))
            throw .invalidURL(url?.absoluteString ?? "nil")
        }
        var options = options
        var context = context
        if let processor = optionsProcessor {
            (options, context) = processor.processed(url, options: options, context: context)
        }
        if !options.contains(.retryFailed), failedURLs.contains(url) {
            metrics.failed(.blackListed)
            throw .blackListed
        }
        return (url, options, context)
    }

    /// The memory lookup every load starts with; `nil` when the load must go further
    /// (a miss, or flags that need more than the memory image).
    @inline(__always)
    func memoryHit(_ url: URL, options: ImageOptions, context: ImageContext) -> Image? {
        guard options.isDisjoint(with: [.fromLoaderOnly, .refreshCached, .queryMemoryData]),
              (context.queryCacheType ?? .all).includesMemory else { return nil }
        let cache: ImageCache
        if let override = context.imageCache {
            guard let direct = override as? ImageCache else { return nil }
            cache = direct
        } else {
            guard let directCache else { return nil }
            cache = directCache
        }
        guard let key = cacheKey(for: url, context: context) else { return nil }
        let firstFrameOnly = options.contains(.decodeFirstFrameOnly) || context.imageDecodeOptions?.decodeFirstFrameOnly == true
        // As the load plan reads it: the context's field, else the decode options' own.
        let framesOnDemand = context.decodesFramesOnDemand ?? context.imageDecodeOptions?.decodesFramesOnDemand ?? false
        return cache.memoryHit(forKey: key, framesOnDemand: framesOnDemand, firstFrameOnly: firstFrameOnly)
    }
}
