import Foundation
import Logging

/// The one call that joins caches, loaders, coders and transformers (SDWebImage's
/// `SDWebImageManager`): give it a URL, get back an image and where it came from.
///
/// A load looks in memory (synchronously, on the caller's thread), then on disk, then,
/// for a thumbnail or a transform, for the original bytes on disk, and finally asks the
/// loader; it transforms what it got, stores the original and the final image, and
/// reports the source in ``ImageLoadResult/cacheType``. URLs that failed for a reason a
/// retry would not fix are refused for an hour or until `.retryFailed` (see
/// ``FailedURLLimits`` and ``shouldBlockFailedURL``).
///
/// Thread-safe. The `async` form runs on the caller's task (cancelling it cancels the
/// load); the callback form calls its completion exactly once, or twice with
/// `.refreshCached` when the image changed on the server.
///
/// ```swift
/// let result = try await ImageManager.shared.loadImage(with: url, options: [.scaleDownLargeImages])
/// print(result.cacheType, result.image.size)
/// var context = ImageContext()
/// context.thumbnailPixelSize = ImageSize(width: 256, height: 256)
/// let thumbnail = try await ImageManager.shared.loadImage(with: url, context: context)
/// ```
public final class ImageManager: ImageManaging {
    /// The process-wide manager over ``ImageCache/shared`` and ``LoadersManager/shared``.
    public static let shared = ImageManager()

    /// The settings a user may change while the manager runs.
    struct Settings: Sendable {
        var transformer: (any ImageTransformer)?
        var cacheKeyFilter: (any CacheKeyFilter)?
        var cacheSerializer: (any CacheSerializer)?
        var optionsProcessor: ImageOptionsProcessor?
        var shouldBlockFailedURL: (@Sendable (URL, WebImageError) -> Bool)?
        var shouldDownloadImage: (@Sendable (URL) -> Bool)?
    }

    /// The cache queried and filled (unless a load's context names another).
    public let imageCache: any ImageCaching
    /// The loader used on a cache miss (unless a load's context names another).
    public let imageLoader: any ImageLoader
    /// Where the manager logs (debug level: one line per load that leaves memory, one per failure).
    public let logger: Logger

    /// ``imageCache`` when it is an ``ImageCache``: the memory path reads it without a cast.
    let directCache: ImageCache?
    let failedURLs: FailedURLSet
    let metrics = ImageManagerMetrics()
    let running = RunningLoads()
    let backgroundStores = BackgroundStores()
    /// The validators of the original bytes each load got, by original cache key and tied
    /// to those bytes: a `.refreshCached` revalidation asks about the bytes its cache holds,
    /// never about a version another caller of the downloader saw.
    let refreshValidators = HTTPValidatorStore()
    let settings: LockedValue<Settings>

    /// Creates a manager over `cache` and `loader`; `optionsProcessor` rewrites each
    /// load's options and context first; `failedURLLimits` bounds the failed-URL set.
    public init(
        cache: any ImageCaching = ImageCache.shared,
        loader: any ImageLoader = LoadersManager.shared,
        optionsProcessor: ImageOptionsProcessor? = nil,
        failedURLLimits: FailedURLLimits = FailedURLLimits(),
        logger: Logger = Logger(label: "WebImage.ImageManager")
    ) {
        imageCache = cache
        imageLoader = loader
        directCache = cache as? ImageCache
        failedURLs = FailedURLSet(limits: failedURLLimits)
        self.logger = logger
        settings = LockedValue(Settings(optionsProcessor: optionsProcessor))
    }

    /// The transformer applied to every load whose context names none. Default `nil`.
    public var transformer: (any ImageTransformer)? {
        get { settings.withLock { $0.transformer } }
        set { settings.withLock { $0.transformer = newValue } }
    }

    /// Maps URLs to cache keys for every load whose context names none. Default `nil`
    /// (the URL's absolute string).
    public var cacheKeyFilter: (any CacheKeyFilter)? {
        get { settings.withLock { $0.cacheKeyFilter } }
        set { settings.withLock { $0.cacheKeyFilter = newValue } }
    }

    /// Chooses the disk bytes for every load whose context names none. Default `nil`.
    public var cacheSerializer: (any CacheSerializer)? {
        get { settings.withLock { $0.cacheSerializer } }
        set { settings.withLock { $0.cacheSerializer = newValue } }
    }

    /// Rewrites each load's options and context before it starts. Default `nil`.
    public var optionsProcessor: ImageOptionsProcessor? {
        get { settings.withLock { $0.optionsProcessor } }
        set { settings.withLock { $0.optionsProcessor = newValue } }
    }

    var currentSettings: Settings { settings.withLock { $0 } }

    // MARK: Keys

    /// The key a load of `url` with `context` reads and writes: the key filter's output
    /// (the absolute string by default), then `-Thumbnail({W,H},P)` for a thumbnail,
    /// `-Decode(...)` for decode options that change the image and `-KEY` for a
    /// transformer, inserted before the path extension (`http://foo/image.png?x#m` →
    /// `http://foo/image-KEY.png?x#m`). `nil` when the URL is `nil` or the filter says
    /// "do not cache".
    public func cacheKey(for url: URL?, context: ImageContext = ImageContext()) -> String? {
        guard let url else { return nil }
        let settings = currentSettings
        guard let key = Self.originalKey(for: url, context: context, filter: settings.cacheKeyFilter) else { return nil }
        return Self.derivedKey(key, context: context, transformer: context.transformer ?? settings.transformer)
    }

    /// The key of the original bytes: the key filter's output alone.
    static func originalKey(for url: URL, context: ImageContext, filter: (any CacheKeyFilter)?) -> String? {
        guard let filter = context.cacheKeyFilter ?? filter else { return url.absoluteString }
        return filter.cacheKey(for: url)
    }

    /// `key` with the thumbnail part, then the transformer part, as SDWebImage appends them;
    /// between the two, the part of decode options that change the image
    /// (``ImageContext/imageDecodeOptions``).
    static func derivedKey(_ key: String, context: ImageContext, transformer: (any ImageTransformer)?) -> String {
        var result = key
        if let size = context.resolvedThumbnailPixelSize, size.pixelCount > 0 {
            result = ImageCacheKey.thumbnailed(result, pixelSize: size, preserveAspectRatio: context.resolvedPreserveAspectRatio)
        }
        if let decode = context.imageDecodeOptions {
            result = ImageCacheKey.decoded(result, options: decode)
        }
        if let transformer {
            result = ImageCacheKey.transformed(result, transformerKey: transformer.key)
        }
        return result
    }

    // MARK: Running loads

    /// Cancels every load in progress; each ends with ``WebImageError/cancelled``.
    public func cancelAll() {
        running.cancelAll()
    }

    /// Whether any load (other than a memory hit, which never waits) is in progress.
    public var isRunning: Bool {
        running.count > 0
    }

    /// Returns once every disk write that loads left running in the background has
    /// finished. A load without ``ImageOptions/waitStoreCache`` completes with its image in
    /// memory and writes the disk copy afterwards; call this before the process exits, or
    /// before the cache's folder is removed, so that no write is lost or lands after.
    /// Writes started while it waits are waited for too.
    public func waitForBackgroundStores() async {
        await backgroundStores.waitUntilIdle()
    }

    /// Hands the memory hits counted since the last load that left memory to the metrics
    /// backend (they are batched so the memory path never calls it).
    public func flushMetrics() {
        metrics.flushMemoryHits()
    }
}

/// The loads a manager has in flight, so ``ImageManager/cancelAll()`` can reach them.
///
/// Thread-safe. A load registers before its task exists and unregisters when it ends;
/// cancelling a slot whose task is not yet attached cancels the task when it is.
final class RunningLoads: Sendable {
    /// One load's place in the registry: the same "cancel may come before the action"
    /// holder the `async` downloader calls use.
    typealias Slot = PendingCancellation

    private let slots = LockedValue<[ObjectIdentifier: Slot]>([:])

    var count: Int { slots.withLock { $0.count } }

    /// A new registered slot.
    func register() -> Slot {
        let slot = Slot()
        slots.withLock { $0[ObjectIdentifier(slot)] = slot }
        return slot
    }

    func unregister(_ slot: Slot) {
        _ = slots.withLock { $0.removeValue(forKey: ObjectIdentifier(slot)) }
    }

    func cancelAll() {
        let all = slots.withLock { Array($0.values) }
        for slot in all { slot.cancel() }
    }
}
