import Foundation

/// The two-level image cache: decoded images in a ``MemoryCache``, their encoded bytes in a
/// ``DiskCache``, and the coders that turn one into the other (SDWebImage's `SDImageCache`).
///
/// A query looks in memory first (synchronously), then on disk: the bytes are read and
/// decoded on the cache's I/O queue, never on the caller's thread, and the image is put in
/// memory for next time. Concurrent queries for the same key share one read and decode.
/// A store puts the image in memory and writes the bytes (given, or encoded) to disk.
///
/// Thread-safe; every method may be called from any task or thread. Methods marked
/// blocking do disk I/O on the calling thread.
///
/// ```swift
/// let cache = ImageCache(namespace: "avatars")
/// try await cache.store(image, data: downloaded, forKey: url.absoluteString)
/// let result = try await cache.image(forKey: url.absoluteString)   // .memory
/// ```
public final class ImageCache: ImageCaching {
    /// The process-wide cache in ``DiskCache/defaultDirectory(namespace:)`` for "default".
    public static let shared = ImageCache(namespace: "default")

    /// The memory level: decoded images by key (thumbnail keys for thumbnails).
    public let memoryCache: MemoryCache<String, Image>
    /// The disk level: encoded bytes by key.
    public let diskCache: DiskCache
    /// The coder that decodes disk hits and encodes stores without data.
    public let coder: any ImageCoder

    private let configuration: LockedValue<ImageCache.Configuration>
    /// Held by a set of ``config`` while it applies the levels' limits, so that sets apply
    /// one after the other, each whole. Not the configuration's own lock: the levels' locks
    /// are taken under this one, and a caller's ``DiskCache/updateConfiguration(_:)``
    /// closure, which runs under the disk level's lock, may read ``config``.
    private let configurationUpdate = LockedValue(())
    let decodes = TaskCoalescer<DecodeRequest, DiskQueryOutcome>()

    /// Creates a cache whose disk level lives in `directory/namespace`; `directory`
    /// defaults to ``DiskCache/defaultBaseDirectory`` (`$XDG_CACHE_HOME/swift-web-image`).
    /// The namespace is one folder's name whatever it holds (``DiskCache/folderName(namespace:)``).
    /// Nothing is created on disk until the first store.
    public init(
        namespace: String,
        directory: URL? = nil,
        config: ImageCache.Configuration = ImageCache.Configuration(),
        coder: any ImageCoder = CodersManager.shared
    ) {
        let base = directory ?? DiskCache.defaultBaseDirectory
        memoryCache = MemoryCache(
            totalCostLimit: config.maxMemoryCost,
            countLimit: config.maxMemoryCount,
            usesWeakTable: config.shouldUseWeakMemoryCache
        )
        diskCache = DiskCache(
            directory: base.appendingPathComponent(DiskCache.folderName(namespace: namespace), isDirectory: true),
            configuration: config.applying(to: DiskCache.Configuration())
        )
        self.coder = coder
        configuration = LockedValue(config)
    }

    /// The configuration; setting it applies the memory limits at once and the disk ones
    /// at the next cleanup. Two sets at once apply one after the other, each whole: applied
    /// side by side, they could leave one's memory limits beside the other's disk ones.
    public var config: ImageCache.Configuration {
        get { configuration.withLock { $0 } }
        set {
            configurationUpdate.withLock { _ in
                memoryCache.totalCostLimit = newValue.maxMemoryCost
                memoryCache.countLimit = newValue.maxMemoryCount
                memoryCache.usesWeakTable = newValue.shouldUseWeakMemoryCache
                // In one step: the read-only folders added meanwhile are kept.
                diskCache.updateConfiguration { $0 = newValue.applying(to: $0) }
                configuration.withLock { $0 = newValue }
            }
        }
    }

    // MARK: Synchronous access

    /// The image in memory for `key`, or `nil`. O(1), never touches the disk.
    public func imageFromMemoryCache(forKey key: String) -> Image? {
        memoryCache.value(forKey: key)
    }

    /// Puts `image` in memory under `key` (when ``ImageCache/Configuration/shouldCacheImagesInMemory``).
    public func storeImageToMemory(_ image: Image, forKey key: String) {
        guard config.shouldCacheImagesInMemory else { return }
        memoryCache.setValue(image, forKey: key, cost: image.memoryCost)
    }

    /// Writes `data` to disk under `key`, unchanged. Blocking.
    public func storeImageDataToDisk(_ data: Data, forKey key: String, extendedData: Data? = nil) throws {
        try diskCache.setData(data, forKey: key, extendedData: extendedData)
    }

    /// The disk bytes for `key`, or `nil`. Blocking.
    public func diskImageData(forKey key: String) -> Data? {
        diskCache.data(forKey: key)
    }

    /// The image for `key` from disk, decoded (and put in memory unless `context` says
    /// otherwise), or `nil`. Blocking: reads and decodes on the calling thread.
    public func imageFromDiskCache(forKey key: String, options: ImageCacheOptions = [], context: ImageCacheContext = ImageCacheContext()) -> Image? {
        queryDisk(request(forKey: key, options: options, context: context), context: context).image
    }

    /// The image for `key` from memory, else from disk (SDWebImage's `imageFromCacheForKey:`),
    /// from the levels `context.queryCacheType` selects, with the memory hit held to the
    /// options as ``image(forKey:options:context:)`` holds it (a still for
    /// ``ImageCacheOptions/decodeFirstFrameOnly``, no lazily decoded animation for a
    /// query that wants every frame). Blocking on a memory miss.
    public func imageFromCache(forKey key: String, options: ImageCacheOptions = [], context: ImageCacheContext = ImageCacheContext()) -> Image? {
        let request = request(forKey: key, options: options, context: context)
        if context.queryCacheType.includesMemory, let hit = memoryHit(request, options: options) { return hit }
        guard context.queryCacheType.includesDisk else { return nil }
        return queryDisk(request, context: context).image
    }

    // MARK: Removing

    /// Removes `key` from the levels `cacheType` selects: memory, disk, or both (the
    /// default). The disk part runs off the cooperative pool.
    public func removeImage(forKey key: String, cacheType: ImageCacheType = .all) async {
        if cacheType.includesMemory { memoryCache.removeValue(forKey: key) }
        if cacheType.includesDisk {
            let disk = diskCache
            await BlockingIO.run { disk.removeData(forKey: key) }
        }
    }

    /// Which level holds `key`: ``ImageCacheType/memory`` when in memory, else
    /// ``ImageCacheType/disk`` when on disk, else ``ImageCacheType/none``.
    public func containsImage(forKey key: String, cacheType: ImageCacheType = .all) async -> ImageCacheType {
        if cacheType.includesMemory, memoryCache.containsValue(forKey: key) { return .memory }
        if cacheType.includesDisk {
            let disk = diskCache
            if await BlockingIO.run({ disk.containsData(forKey: key) }) { return .disk }
        }
        return .none
    }

    /// Empties memory, disk, or both.
    public func clear(_ cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memoryCache.removeAll() }
        if cacheType.includesDisk {
            let disk = diskCache
            await BlockingIO.run { disk.removeAllData() }
        }
    }

    /// Removes expired and over-size disk entries now (see ``DiskCache/removeExpiredData()``).
    @discardableResult
    public func removeExpiredData() async -> DiskCache.CleanupResult {
        let disk = diskCache
        return await BlockingIO.run { disk.removeExpiredData() }
    }

    /// The total size of the disk entries in bytes.
    public func totalDiskSize() async -> Int {
        let disk = diskCache
        return await BlockingIO.run { disk.totalSize }
    }

    /// The number of disk entries.
    public func totalDiskCount() async -> Int {
        let disk = diskCache
        return await BlockingIO.run { disk.totalCount }
    }
}
