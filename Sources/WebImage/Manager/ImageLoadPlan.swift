import Foundation

/// One load's settings, resolved once from the manager, the ``ImageOptions`` and the
/// ``ImageContext``: which cache, loader and keys, and the cache and loader options the
/// flags and context fields map to.
///
/// Every context field overrides the manager's setting for this call only; the defaults
/// are SDWebImage's: query memory and disk, store the final image in both, look for the
/// original on disk and store it on disk.
struct ImageLoadPlan: Sendable {
    /// SDWebImage's default `scaleDownLimitBytes`: 60 MiB of RGBA.
    static let defaultScaleDownLimitBytes = 60 * 1024 * 1024

    let url: URL
    let options: ImageOptions
    let context: ImageContext
    let cache: any ImageCaching
    let originalCache: any ImageCaching
    let loader: any ImageLoader
    /// The final image's key (thumbnail and transformer parts included); `nil` when the key
    /// filter says "do not cache".
    let key: String?
    /// The key of the original bytes (the key filter's output alone).
    let originalKey: String?
    /// How downloaded and disk bytes are decoded.
    let decodeOptions: ImageCoderOptions

    init(url: URL, options: ImageOptions, context: ImageContext, manager: ImageManager, settings: ImageManager.Settings) {
        self.url = url
        self.options = options
        self.context = context
        cache = context.imageCache ?? manager.imageCache
        originalCache = context.originalImageCache ?? context.imageCache ?? manager.imageCache
        loader = context.imageLoader ?? manager.imageLoader
        let transformer = context.transformer ?? settings.transformer
        self.transformer = transformer
        cacheSerializer = context.cacheSerializer ?? settings.cacheSerializer
        originalKey = ImageManager.originalKey(for: url, context: context, filter: settings.cacheKeyFilter)
        key = originalKey.map { ImageManager.derivedKey($0, context: context, transformer: transformer) }

        // The context's decode options, then its own fields and the flags on top; their
        // encoding fields would otherwise leak into how the cache encodes a store.
        var decode = context.imageDecodeOptions ?? ImageCoderOptions()
        decode.takeEncodeSettings(of: ImageCoderOptions())
        decode.thumbnailPixelSize = context.resolvedThumbnailPixelSize
        decode.preserveAspectRatio = context.resolvedPreserveAspectRatio
        // SDWebImage's rule: the context's scale, else the one the key's name claims (a
        // scale other than 1 in the decode options counts as the context's).
        decode.scaleFactor = context.scaleFactor
            ?? (decode.scaleFactor != 1 ? decode.scaleFactor : ImageCacheKey.scaleFactor(forKey: originalKey ?? url.absoluteString))
        if options.contains(.scaleDownLargeImages) {
            decode.scaleDownLimitBytes = context.scaleDownLimitBytes ?? decode.scaleDownLimitBytes ?? Self.defaultScaleDownLimitBytes
        }
        decode.decodeFirstFrameOnly = decode.decodeFirstFrameOnly || options.contains(.decodeFirstFrameOnly)
        decode.preloadAllFrames = decode.preloadAllFrames || options.contains(.preloadAllFrames)
        decode.decodesFramesOnDemand = context.decodesFramesOnDemand ?? decode.decodesFramesOnDemand
        decode.formatHint = context.imageFormatHint ?? decode.formatHint
        decodeOptions = decode
    }

    /// The transformer to apply, if any.
    let transformer: (any ImageTransformer)?
    /// Chooses the disk bytes of the final image, if set.
    let cacheSerializer: (any CacheSerializer)?

    /// Whether the final image differs from the original bytes' decode (a thumbnail or a
    /// transform), so an original on disk is worth looking for on a miss.
    var derivesFromOriginal: Bool { key != originalKey }

    /// What happens to an animated image under the transformer: every frame with
    /// `.transformAnimatedImage`, else left alone, as SDWebImage does.
    var animatedTransform: AnimatedImageTransform {
        options.contains(.transformAnimatedImage) ? .everyFrame : .untouched
    }

    var queryCacheType: ImageCacheType { context.queryCacheType ?? .all }
    var storeCacheType: ImageCacheType { context.storeCacheType ?? .all }
    var originalQueryCacheType: ImageCacheType { context.originalQueryCacheType ?? .disk }
    var originalStoreCacheType: ImageCacheType { context.originalStoreCacheType ?? .disk }

    /// The cache flags of the query.
    var cacheOptions: ImageCacheOptions {
        var result: ImageCacheOptions = []
        if options.contains(.queryMemoryData) { result.insert(.queryMemoryData) }
        if options.contains(.queryMemoryDataSync) { result.insert(.queryMemoryDataSync) }
        if options.contains(.queryDiskDataSync) { result.insert(.queryDiskDataSync) }
        // The decode options' own first-frame setting holds for memory hits as the flag
        // does (a download or a disk decode already honours it).
        if options.contains(.decodeFirstFrameOnly) || decodeOptions.decodeFirstFrameOnly { result.insert(.decodeFirstFrameOnly) }
        return result
    }

    /// The context of the query for the final key. The key already names the thumbnail,
    /// so the decode options carry none (the cache would map the key a second time); an
    /// entry under a thumbnail key holds the thumbnail's own bytes.
    var finalQueryContext: ImageCacheContext {
        var result = baseCacheContext
        result.coderOptions.thumbnailPixelSize = nil
        result.queryCacheType = queryCacheType
        result.storeCacheType = options.contains(.avoidDecodeImage) ? storeCacheType.withoutMemory : storeCacheType
        return result
    }

    /// The context of the query for the original bytes on a final miss: decoded as the
    /// thumbnail asked for, and not put in memory (the manager stores the final image).
    var originalQueryContext: ImageCacheContext {
        var result = baseCacheContext
        result.queryCacheType = originalQueryCacheType
        result.storeCacheType = .none
        return result
    }

    /// The context of storing the final image under ``key``: a derived image has no bytes,
    /// so the cache encodes it with the context's encode options.
    var finalStoreContext: ImageCacheContext {
        var result = baseCacheContext
        result.coderOptions.thumbnailPixelSize = nil
        result.cacheSerializer = cacheSerializer
        if let encode = context.imageEncodeOptions { result.coderOptions.takeEncodeSettings(of: encode) }
        return result
    }

    /// The context of storing the original bytes under ``originalKey``: through the cache
    /// serializer too, as SDWebImage's `callStoreOriginCacheProcess` stores them (it was
    /// left out, so a transformed load wrote the raw download). A thumbnail load stores
    /// its original without an image (a thumbnail must not pass for it), and the cache
    /// calls a serializer only with one, so there the raw download is still written.
    var originalStoreContext: ImageCacheContext {
        var result = baseCacheContext
        result.coderOptions.thumbnailPixelSize = nil
        result.cacheSerializer = cacheSerializer
        if let encode = context.imageEncodeOptions { result.coderOptions.takeEncodeSettings(of: encode) }
        return result
    }

    private var baseCacheContext: ImageCacheContext {
        var result = ImageCacheContext()
        result.coderOptions = decodeOptions
        result.coder = context.imageCoder
        return result
    }

    /// The loader's options: priority, progressive, certificates, cookies, decode options
    /// and the request hooks; `cachedData` for a `refreshCached` revalidation.
    func downloadOptions(cachedData: Data?) -> DownloadRequestOptions {
        var result = DownloadRequestOptions()
        if options.contains(.highPriority) {
            result.priority = .high
        } else if options.contains(.lowPriority) {
            result.priority = .low
        }
        // A refresh's cached image is already shown: partial images of the new download
        // would go nowhere (SDWebImage clears progressive loading for a refresh too).
        result.progressiveLoad = options.contains(.progressiveLoad) && cachedData == nil
        result.allowInvalidCertificates = options.contains(.allowInvalidSSLCertificates)
        result.handleCookies = options.contains(.handleCookies)
        result.decodeOptions = decodeOptions
        result.requestModifier = context.requestModifier
        result.responseModifier = context.responseModifier
        result.decryptor = context.decryptor
        result.cachedData = cachedData
        return result
    }
}

extension ImageCacheType {
    /// The levels both selections include.
    func intersection(_ other: ImageCacheType) -> ImageCacheType {
        switch (includesMemory && other.includesMemory, includesDisk && other.includesDisk) {
        case (true, true): .all
        case (true, false): .memory
        case (false, true): .disk
        case (false, false): .none
        }
    }

    /// This selection with the memory level taken out.
    var withoutMemory: ImageCacheType {
        switch self {
        case .all, .disk: .disk
        case .memory, .none: .none
        }
    }
}
