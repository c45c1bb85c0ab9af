import Foundation

/// The flow of one load that missed memory (DESIGN.md's thirteen steps): final key in the
/// cache → original bytes on disk → loader → transform → store → result.
extension ImageManager {
    /// How a load ended: a result to deliver, or (after `.refreshCached` delivered the
    /// cached image) nothing new — the cached result, for the `async` form to return.
    enum LoadOutcome: Sendable {
        case fresh(ImageLoadResult)
        case unchanged(ImageLoadResult)
    }

    /// An image and the bytes it was decoded from.
    struct Decoded: Sendable {
        var image: Image
        var data: Data?
    }

    /// Runs `plan`; records failures in the failed-URL set and the metrics.
    func run(
        _ plan: ImageLoadPlan,
        progress: LoadProgressHandler?,
        onCached: (@Sendable (ImageLoadResult) -> Void)?
    ) async throws(WebImageError) -> LoadOutcome {
        do {
            let outcome = try await flow(plan, progress: progress, onCached: onCached)
            if case .fresh(let result) = outcome {
                metrics.loaded(from: result.cacheType)
                if result.cacheType == .none, plan.options.contains(.retryFailed) { failedURLs.remove(plan.url) }
                logger.debug("loaded", metadata: ["url": "\(plan.url.absoluteString)", "source": "\(result.cacheType.rawValue)"])
            }
            return outcome
        } catch {
            let error = WebImageError(error)
            metrics.failed(error)
            rememberFailure(of: plan.url, error: error)
            logger.debug("load failed", metadata: ["url": "\(plan.url.absoluteString)", "error": "\(error)"])
            throw error
        }
    }

    private func flow(
        _ plan: ImageLoadPlan,
        progress: LoadProgressHandler?,
        onCached: (@Sendable (ImageLoadResult) -> Void)?
    ) async throws -> LoadOutcome {
        let mayQuery = !plan.options.contains(.fromLoaderOnly)
        if mayQuery, let key = plan.key, plan.queryCacheType != .none {
            // A disk write of this key still running (an earlier load's) is read, not missed.
            try await backgroundStores.waitForWrites(of: key)
            let start = ContinuousClock.now
            let found = try await plan.cache.image(forKey: key, options: plan.cacheOptions, context: plan.finalQueryContext)
            if let image = found.image {
                if found.cacheType == .disk { metrics.decoded(in: ContinuousClock.now - start) }
                let cached = ImageLoadResult(image: image, data: found.data, cacheType: found.cacheType, url: plan.url)
                guard plan.options.contains(.refreshCached), !plan.options.contains(.fromCacheOnly), mayDownload(plan.url) else {
                    return .fresh(cached)
                }
                onCached?(cached)
                return try await refresh(plan, cached: cached, progress: progress)
            }
        }
        if mayQuery, plan.derivesFromOriginal, let originalKey = plan.originalKey, plan.originalQueryCacheType != .none {
            try await backgroundStores.waitForWrites(of: originalKey)
            let start = ContinuousClock.now
            let found = try await plan.originalCache.image(forKey: originalKey, options: plan.cacheOptions, context: plan.originalQueryContext)
            if let image = found.image {
                metrics.decoded(in: ContinuousClock.now - start)
                let final = try await finish(Decoded(image: image, data: found.data), plan: plan, storeOriginal: false)
                return .fresh(ImageLoadResult(image: final, data: found.data, cacheType: found.cacheType, url: plan.url))
            }
        }
        if plan.options.contains(.fromCacheOnly) || !mayDownload(plan.url) { throw WebImageError.notInCache }
        let loaded = try await load(plan, cachedData: nil, progress: progress)
        let final = try await finish(loaded, plan: plan, storeOriginal: true)
        return .fresh(ImageLoadResult(image: final, data: loaded.data, cacheType: .none, url: plan.url))
    }

    /// `.refreshCached` after a cache hit: download again, revalidating with the cached
    /// bytes; a 304 or the same bytes is no change, as is a failed refresh (logged and
    /// counted, not remembered as a failed URL: the cached image is still good, and a
    /// remembered failure would refuse the next plain load of it, memory hit included;
    /// only cancellation is thrown).
    private func refresh(_ plan: ImageLoadPlan, cached: ImageLoadResult, progress: LoadProgressHandler?) async throws -> LoadOutcome {
        let previous = await originalBytes(plan)
        // Only the validators of these very bytes; none (an unconditional request) when the
        // manager did not see them arrive, rather than the downloader's latest for the URL.
        let validators = previous.flatMap { bytes in
            plan.originalKey.flatMap { refreshValidators.validators(forKey: $0, describing: bytes) }
        } ?? HTTPValidators()
        do {
            let loaded = try await load(plan, cachedData: previous, validators: validators, progress: progress)
            if let previous, loaded.data == previous { return .unchanged(cached) }
            let final = try await finish(loaded, plan: plan, storeOriginal: true)
            return .fresh(ImageLoadResult(image: final, data: loaded.data, cacheType: .none, url: plan.url))
        } catch {
            let error = WebImageError(error)
            if error == .cancelled || Task.isCancelled { throw WebImageError.cancelled }
            if error != .cacheNotModified {
                metrics.failed(error)
                logger.debug("refresh failed", metadata: ["url": "\(plan.url.absoluteString)", "error": "\(error)"])
            }
            return .unchanged(cached)
        }
    }

    /// The original bytes on disk, to revalidate and compare a refresh against.
    private func originalBytes(_ plan: ImageLoadPlan) async -> Data? {
        guard let key = plan.originalKey else { return nil }
        // Cancelled: no bytes; the refresh's download then ends as cancelled.
        do { try await backgroundStores.waitForWrites(of: key) } catch { return nil }
        if let cache = plan.originalCache as? ImageCache {
            return await BlockingIO.run { cache.diskImageData(forKey: key) }
        }
        var context = ImageCacheContext()
        context.queryCacheType = .disk
        context.storeCacheType = .none
        return try? await plan.originalCache.image(forKey: key, options: [.queryMemoryData], context: context).data
    }

    /// Asks the loader. A context coder decodes the bytes of an HTTP download itself (the
    /// downloader decodes with its own coder otherwise), and replaces the coder of the
    /// built-in `file:` and `data:` loaders.
    private func load(
        _ plan: ImageLoadPlan, cachedData: Data?, validators: HTTPValidators? = nil, progress: LoadProgressHandler?
    ) async throws -> Decoded {
        let url = plan.url
        var options = plan.downloadOptions(cachedData: cachedData)
        options.cachedDataValidators = validators
        var loader = (plan.loader as? LoadersManager)?.loader(for: url) ?? plan.loader
        guard loader.canLoad(url) else { throw WebImageError.invalidURL(url.absoluteString) }
        if let coder = plan.context.imageCoder {
            switch loader {
            case let downloader as Downloader:
                let raw = try await downloader.loadData(from: url, options: options, progress: progress)
                metrics.downloaded(bytes: raw.metrics.bytesReceived)
                await recordValidators(of: raw.response, describing: raw.data, plan: plan)
                let start = ContinuousClock.now
                let decodeOptions = plan.decodeOptions
                // Decoding is seconds of blocking work: off Swift's cooperative pool.
                let image = try await BlockingIO.run { try coder.decode(raw.data, options: decodeOptions) }
                try Task.checkCancellation()
                metrics.decoded(in: ContinuousClock.now - start)
                return Decoded(image: image, data: raw.data)
            case let file as FileURLLoader:
                loader = FileURLLoader(coder: coder, maximumFileSize: file.maximumFileSize)
            case let data as DataURLLoader:
                loader = DataURLLoader(coder: coder, maximumSize: data.maximumSize)
            default:
                break
            }
        }
        let start = ContinuousClock.now
        let result = try await loader.load(url, options: options, progress: progress)
        await recordValidators(of: result.response, describing: result.data, plan: plan)
        let elapsed = ContinuousClock.now - start
        if let transfer = result.metrics {
            metrics.downloaded(bytes: transfer.bytesReceived)
            // The downloader decodes after the transfer; what is left of the call is the decode.
            metrics.decoded(in: max(.zero, elapsed - transfer.totalTime))
        } else {
            metrics.decoded(in: elapsed)
        }
        return Decoded(image: result.image, data: result.data)
    }

    /// Remembers the validators of an HTTP response with the bytes it brought, for a later
    /// refresh of the original they are cached as; a response without validators forgets
    /// the old ones (its bytes are another version). A 304 brought the cached bytes back:
    /// its validators, when it sends any, are theirs now; without any, the old ones stay.
    /// Recording hashes the bytes: past a quarter of a megabyte (about 100 µs), off Swift's
    /// cooperative pool.
    private func recordValidators(of response: DownloadResponse?, describing data: Data, plan: ImageLoadPlan) async {
        guard let response, let key = plan.originalKey else { return }
        let validators = HTTPValidators(headers: response.headers)
        if response.statusCode == 304, validators.isEmpty { return }
        let store = refreshValidators
        if validators.isEmpty || data.count < 256 << 10 {
            store.record(validators, forKey: key, describing: data)
        } else {
            await BlockingIO.run { store.record(validators, forKey: key, describing: data) }
        }
    }

    /// Transforms `original` and stores what the plan says: the original bytes under the
    /// original key (when they came from the loader and the final image is derived), the
    /// final image under the final key. Waits for the stores with `.waitStoreCache`.
    ///
    /// A transformer that fails (a crop outside the image, a size over the pixel limit)
    /// does not fail the load: as SDWebImage does when its transformer returns no image,
    /// the untransformed image stands for the transformed one, delivered and stored under
    /// the transformed key (so the next load of that key is a cache hit, not the failing
    /// transform again). The load used to fail, and, never remembered as a failed URL,
    /// downloaded the image again at every try.
    private func finish(_ original: Decoded, plan: ImageLoadPlan, storeOriginal: Bool) async throws -> Image {
        var final = original.image
        if let transformer = plan.transformer {
            let start = ContinuousClock.now
            let image = original.image, animated = plan.animatedTransform
            do {
                // A transform is blocking work (every frame of an animation decoded for
                // `.everyFrame`): off Swift's cooperative pool, as decodes are.
                final = try await BlockingIO.run { try transformer.transform(image, animated: animated) }
                metrics.transformed(in: ContinuousClock.now - start)
            } catch {
                if error is CancellationError || WebImageError(error) == .cancelled { throw error }
                logger.debug("transform failed; the untransformed image stands for it", metadata: [
                    "url": "\(plan.url.absoluteString)", "transformer": "\(transformer.key)", "error": "\(error)",
                ])
            }
        }
        try Task.checkCancellation()
        let stores = { (levels: ImageCacheType) in
            self.storeWork(original: original, final: final, plan: plan, storeOriginal: storeOriginal, levels: levels)
        }
        let keys = [plan.originalKey, plan.key].compactMap { $0 }
        if plan.options.contains(.waitStoreCache) {
            // In order with the background writes of the same keys, and waited for.
            await backgroundStores.write(keys, stores(.all))
        } else {
            // Memory now, so the next load of this key hits it (as SDWebImage stores to
            // memory before completing); the disk write goes on in the background.
            await stores(.memory)()
            backgroundStores.run(writing: keys, stores(.disk))
        }
        return final
    }

    /// Whether `data` may hold an animation: a frame source of ``AnimatedImage`` accepts it,
    /// or it is JPEG XL. Without the bytes, it may.
    private static func mayBeAnimated(_ data: Data?) -> Bool {
        guard let data else { return true }
        return AnimatedImage.coderTypes.contains { $0.canDecodeAnimation(data) } || ImageFormat(sniffing: data) == .jpegXL
    }

    /// The stores of one load in the cache levels `levels` selects, as one closure so it
    /// can run now or in the background.
    private func storeWork(original: Decoded, final: Image, plan: ImageLoadPlan, storeOriginal: Bool, levels: ImageCacheType) -> @Sendable () async -> Void {
        // A first-frame decode of an animation must not stand in for the animation in
        // memory (as the cache's own queries rule): its bytes still go to disk.
        let avoidMemory = plan.options.contains(.avoidDecodeImage) || plan.decodeOptions.decodeFirstFrameOnly
        let finalType = (avoidMemory ? plan.storeCacheType.withoutMemory : plan.storeCacheType).intersection(levels)
        let originalType = (avoidMemory ? plan.originalStoreCacheType.withoutMemory : plan.originalStoreCacheType).intersection(levels)
        let derived = plan.derivesFromOriginal
        // The original's bytes stand for the final image only when it is the original.
        let finalData = final === original.image && !original.image.isThumbnail ? original.data : nil
        let logger = logger
        // Each store on its own: an original the disk refuses (over its entry limit) must not
        // keep the smaller final image out of the cache.
        return {
            if derived, storeOriginal, let key = plan.originalKey, originalType != .none {
                // A thumbnail must not pass for the full image in memory.
                let image = original.image.isThumbnail ? nil : original.image
                do {
                    try await plan.originalCache.store(image, data: original.data, forKey: key, cacheType: originalType, context: plan.originalStoreContext)
                } catch {
                    logger.debug("original store failed", metadata: ["url": "\(plan.url.absoluteString)", "error": "\(error)"])
                }
            }
            // A first-frame decode of a thumbnail or transformed load has no key of its own
            // (the key names the thumbnail and the transformer, not the frame count): stored,
            // it would come back as the whole image's still for later loads of that key.
            let firstFrameStandsIn = derived && plan.decodeOptions.decodeFirstFrameOnly && Self.mayBeAnimated(original.data)
            if let key = plan.key, finalType != .none, derived || storeOriginal, !firstFrameStandsIn {
                do {
                    try await plan.cache.store(final, data: derived ? finalData : original.data, forKey: key, cacheType: finalType, context: plan.finalStoreContext)
                } catch {
                    logger.debug("cache store failed", metadata: ["url": "\(plan.url.absoluteString)", "error": "\(error)"])
                }
            }
        }
    }

}
