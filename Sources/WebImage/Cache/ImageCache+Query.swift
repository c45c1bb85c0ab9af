import Foundation

extension ImageCache {
    /// One disk read-and-decode, the unit that concurrent queries share. Two requests are
    /// equal when they read the same key into the same memory key with the same decode
    /// options; a request with a per-call coder carries a unique token and is never shared.
    struct DecodeRequest: Hashable, Sendable {
        let key: String
        let memoryKey: String
        let coderOptions: ImageCoderOptions
        let fillsMemory: Bool
        let uniqueToken: UInt64?

        func hash(into hasher: inout Hasher) {
            hasher.combine(key)
            hasher.combine(memoryKey)
            hasher.combine(uniqueToken)
        }
    }

    /// What a disk query found.
    struct DiskQueryOutcome: Sendable {
        var image: Image?
        var data: Data?
        var extendedData: Data?
    }

    /// The memory level's image for `request`, as a query with `options` may use it (see
    /// ``memoryHit(forKey:framesOnDemand:firstFrameOnly:)``).
    func memoryHit(_ request: DecodeRequest, options: ImageCacheOptions) -> Image? {
        memoryHit(forKey: request.memoryKey, framesOnDemand: request.coderOptions.decodesFramesOnDemand,
                  firstFrameOnly: options.contains(.decodeFirstFrameOnly))
    }

    /// The memory level's image under `memoryKey` as a lookup may use it: a still of it
    /// when `firstFrameOnly`, nothing when it is an animation decoded lazily and the lookup
    /// wants every frame decoded (or the reverse). The cache's queries and the manager's
    /// synchronous fast path both go through it, so they cannot disagree.
    func memoryHit(forKey memoryKey: String, framesOnDemand: Bool, firstFrameOnly: Bool) -> Image? {
        guard let hit = memoryCache.value(forKey: memoryKey), hit.suitsDecode(framesOnDemand: framesOnDemand) else { return nil }
        return firstFrameOnly ? Self.firstFrame(of: hit) : hit
    }

    /// Looks `key` up in memory, then on disk, as `options` and `context` say
    /// (SDWebImage's `queryImageForKey:options:context:cacheType:completion:`).
    ///
    /// - A memory hit returns at once, without touching the disk, unless
    ///   ``ImageCacheOptions/queryMemoryData`` asks for the bytes too; its type is
    ///   ``ImageCacheType/memory``.
    /// - On a memory miss the entry is read and decoded on the cache's I/O queue (or on the
    ///   caller's thread with ``ImageCacheOptions/queryDiskDataSync``), put in memory when
    ///   `context.storeCacheType` includes memory, and returned as ``ImageCacheType/disk``.
    ///   Concurrent queries for the same key and options share that work.
    /// - With a thumbnail size in `context.coderOptions`, memory is looked up (and filled)
    ///   under the thumbnail key, while the disk bytes are the full image's.
    ///
    /// Completes exactly once. Throws ``WebImageError/cancelled`` (and nothing else) when
    /// the calling task is cancelled; the shared decode goes on for other waiters.
    public func image(
        forKey key: String,
        options: ImageCacheOptions = [],
        context: ImageCacheContext = ImageCacheContext()
    ) async throws -> ImageCacheQueryResult {
        guard !Task.isCancelled else { throw WebImageError.cancelled }
        let queryType = context.queryCacheType
        guard queryType != .none else { return .miss }
        let request = request(forKey: key, options: options, context: context)

        let memoryImage = queryType.includesMemory ? memoryHit(request, options: options) : nil
        if queryType == .memory || (memoryImage != nil && !options.contains(.queryMemoryData)) {
            return ImageCacheQueryResult(image: memoryImage, cacheType: .memory)
        }
        if let memoryImage {
            let entry: DiskCache.Entry?
            if options.contains(.queryMemoryDataSync) {
                entry = diskCache.entry(forKey: key)
            } else {
                let disk = diskCache
                entry = await BlockingIO.run { disk.entry(forKey: key) }
            }
            guard !Task.isCancelled else { throw WebImageError.cancelled }
            return ImageCacheQueryResult(image: memoryImage, data: entry?.data, extendedData: entry?.extendedData, cacheType: .memory)
        }

        let outcome: DiskQueryOutcome
        if options.contains(.queryDiskDataSync) {
            outcome = queryDisk(request, context: context)
        } else {
            do {
                outcome = try await decodes.value(forKey: request) {
                    await BlockingIO.run { self.queryDisk(request, context: context) }
                }
            } catch {
                throw WebImageError.cancelled
            }
        }
        guard !Task.isCancelled else { throw WebImageError.cancelled }
        return ImageCacheQueryResult(image: outcome.image, data: outcome.data, extendedData: outcome.extendedData, cacheType: .disk)
    }

    /// The decode request for a query of `key`.
    func request(forKey key: String, options: ImageCacheOptions, context: ImageCacheContext) -> DecodeRequest {
        var coderOptions = context.coderOptions
        if options.contains(.decodeFirstFrameOnly) { coderOptions.decodeFirstFrameOnly = true }
        // A first-frame decode of an animation must not stand in for the animation later.
        let fillsMemory = context.storeCacheType.includesMemory && config.shouldCacheImagesInMemory
            && !coderOptions.decodeFirstFrameOnly
        return DecodeRequest(
            key: key,
            memoryKey: context.memoryKey(for: key),
            coderOptions: coderOptions,
            fillsMemory: fillsMemory,
            uniqueToken: context.coder == nil ? nil : UInt64.random(in: .min ... .max)
        )
    }

    /// Reads and decodes the entry for `request`. Blocking. An entry that does not decode
    /// gives its bytes and no image: a corrupt entry is a miss, to be replaced by a fresh
    /// download, not an error.
    func queryDisk(_ request: DecodeRequest, context: ImageCacheContext) -> DiskQueryOutcome {
        guard let entry = diskCache.entry(forKey: request.key) else { return DiskQueryOutcome() }
        // Another query may have decoded this entry while we waited (SDWebImage re-checks
        // memory here too), and one image object per key is what callers expect.
        if request.fillsMemory, let image = memoryCache.value(forKey: request.memoryKey),
           image.suitsDecode(framesOnDemand: request.coderOptions.decodesFramesOnDemand) {
            return DiskQueryOutcome(image: image, data: entry.data, extendedData: entry.extendedData)
        }
        let image = try? (context.coder ?? coder).decode(entry.data, options: request.coderOptions)
        if let image, request.fillsMemory {
            memoryCache.setValue(image, forKey: request.memoryKey, cost: image.memoryCost)
        }
        return DiskQueryOutcome(image: image, data: entry.data, extendedData: entry.extendedData)
    }

    /// The first frame of `image` as a still image (the image itself when it is still).
    static func firstFrame(of image: Image) -> Image {
        guard image.isAnimated || image.animatedImage != nil else { return image }
        return Image(
            frames: [ImageFrame(pixels: image.frames[0].pixels)],
            format: image.format,
            scale: image.scale,
            orientation: image.orientation,
            hasAlpha: image.hasAlpha,
            isThumbnail: image.isThumbnail,
            isTransformed: image.isTransformed,
            colorProfile: image.colorProfile,
            metadata: image.metadata
        )
    }
}
