import Foundation

/// Loads that store a URL's original bytes on disk without decoding them: what a
/// prefetcher of originals needs (Nuke's `ImagePrefetcher` with the `.diskCache`
/// destination, which also skips the decode).
extension ImageManager {
    /// Puts the original bytes of `url` in the disk cache without decoding them, and
    /// without holding them in memory: an HTTP download streams into the cache entry's
    /// temporary file as it arrives and is renamed into place when complete (see
    /// ``Downloader/downloadFile(with:to:options:progress:completion:)``), so a load costs
    /// one buffer of memory, not the body, and nothing is left on disk when it fails.
    ///
    /// The entry is the one a later ``loadImage(with:options:context:progress:)`` reads:
    /// the original key (the key filter's output; thumbnail and transformer are ignored)
    /// in the disk cache of the context's (or the manager's) original cache. A disk entry
    /// already there is a hit (`.disk`) unless `.fromLoaderOnly`; `.fromCacheOnly` never
    /// downloads. Failures go to the failed-URL set as for any load.
    ///
    /// Needs an ``ImageCache`` as the original cache, the ``Downloader`` for the URL, and
    /// no decryptor, cache serializer or `.refreshCached` (each needs the whole body or the
    /// image): otherwise the load decodes and stores through
    /// ``loadImage(with:options:context:progress:)`` as before, and the result says only
    /// where it came from. Cancelling the calling task, or ``cancelAll()``, cancels the load
    /// (and the download, when no other caller needs it), as for an image load.
    public func loadOriginalData(
        with url: URL?,
        options: ImageOptions = [],
        context: ImageContext = ImageContext(),
        progress: LoadProgressHandler? = nil
    ) async throws(WebImageError) -> OriginalDataResult {
        try await tracked { () async throws(WebImageError) -> OriginalDataResult in
            try await self.originalData(url, options: options, context: context, progress: progress)
        }
    }

    /// The body of ``loadOriginalData(with:options:context:progress:)``, in the task the
    /// manager tracks.
    private func originalData(
        _ url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?
    ) async throws(WebImageError) -> OriginalDataResult {
        let (url, options, context) = try prepared(url, options: options, context: context)
        let plan = ImageLoadPlan(url: url, options: options, context: context, manager: self, settings: currentSettings)
        guard let route = streamRoute(plan) else {
            switch try await run(plan, progress: progress, onCached: nil) {
            case .fresh(let result), .unchanged(let result):
                return OriginalDataResult(url: url, cacheType: result.cacheType, byteCount: result.data?.count, fileURL: nil)
            }
        }
        do {
            let result = try await storeOriginal(plan, route: route, progress: progress)
            metrics.loaded(from: result.cacheType)
            if result.cacheType == .none, options.contains(.retryFailed) { failedURLs.remove(url) }
            logger.debug("stored original", metadata: ["url": "\(url.absoluteString)", "source": "\(result.cacheType.rawValue)"])
            return result
        } catch {
            metrics.failed(error)
            rememberFailure(of: url, error: error)
            logger.debug("load failed", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
            throw error
        }
    }

    /// The callback form of ``loadOriginalData(with:options:context:progress:)``:
    /// `completion` is called exactly once, from an arbitrary thread (or
    /// `context.callbackQueue`); the returned operation cancels the load, and `completion`
    /// then gets ``WebImageError/cancelled`` unless it already had its result.
    @discardableResult
    public func loadOriginalData(
        with url: URL?,
        options: ImageOptions = [],
        context: ImageContext = ImageContext(),
        progress: LoadProgressHandler? = nil,
        completion: @escaping @Sendable (Result<OriginalDataResult, WebImageError>) -> Void
    ) -> ImageLoadOperation {
        let queue = context.callbackQueue
        let done = LockedValue(false)
        let finish: @Sendable (Result<OriginalDataResult, WebImageError>) -> Void = { result in
            guard done.withLock({ done in defer { done = true }; return !done }) else { return }
            if let queue { queue.async { completion(result) } } else { completion(result) }
        }
        // As for an image load: the completion waits for a progress report in flight.
        let gate = ProgressGate()
        let slot = running.register()
        let task = Task {
            defer { running.unregister(slot) }
            let result: Result<OriginalDataResult, WebImageError>
            do throws(WebImageError) {
                result = .success(try await originalData(url, options: options, context: context, progress: gate.guarding(progress)))
            } catch {
                result = .failure(error)
            }
            gate.close { finish(result) }
        }
        slot.store { task.cancel() }
        return ImageLoadOperation {
            task.cancel()
            gate.close { finish(.failure(.cancelled)) }
        }
    }

    /// How a load of original bytes reaches the disk without a decode.
    private struct StreamRoute {
        var downloader: Downloader
        var disk: DiskCache
        var key: String
    }

    /// The streaming route of `plan`, or `nil` when it must decode (see
    /// ``loadOriginalData(with:options:context:progress:)``).
    private func streamRoute(_ plan: ImageLoadPlan) -> StreamRoute? {
        guard let key = plan.originalKey, let cache = plan.originalCache as? ImageCache,
              plan.context.decryptor == nil, plan.cacheSerializer == nil, !plan.options.contains(.refreshCached) else { return nil }
        let loader = (plan.loader as? LoadersManager)?.loader(for: plan.url) ?? plan.loader
        guard let downloader = loader as? Downloader, downloader.canLoad(plan.url) else { return nil }
        return StreamRoute(downloader: downloader, disk: cache.diskCache, key: key)
    }

    private func storeOriginal(_ plan: ImageLoadPlan, route: StreamRoute, progress: LoadProgressHandler?) async throws(WebImageError) -> OriginalDataResult {
        let disk = route.disk
        let key = route.key
        if !plan.options.contains(.fromLoaderOnly), plan.originalQueryCacheType.includesDisk {
            let found = await BlockingIO.run { () -> (Bool, Int?) in
                guard disk.containsData(forKey: key) else { return (false, nil) }
                return (true, FileIO.status(disk.fileURL(forKey: key).path).map { Int($0.st_size) })
            }
            if found.0 {
                let fileURL = found.1 == nil ? nil : disk.fileURL(forKey: key)
                return OriginalDataResult(url: plan.url, cacheType: .disk, byteCount: found.1, fileURL: fileURL)
            }
        }
        if plan.options.contains(.fromCacheOnly) || !mayDownload(plan.url) { throw WebImageError.notInCache }
        let destination = DiskCacheEntryDestination(cache: disk, key: key)
        let file = try await route.downloader.loadFile(from: plan.url, to: destination, options: plan.downloadOptions(cachedData: nil), progress: progress)
        metrics.downloaded(bytes: file.metrics.bytesReceived)
        return OriginalDataResult(url: plan.url, cacheType: .none, byteCount: file.byteCount, fileURL: file.fileURL)
    }
}
