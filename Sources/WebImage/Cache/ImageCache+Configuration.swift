import Foundation

extension ImageCache {
    /// How an ``ImageCache`` behaves: SDWebImage's `SDImageCacheConfig`, field for field where
    /// the field makes sense on a server.
    ///
    /// Changing ``ImageCache/config`` applies the new values at once (lower memory limits
    /// evict immediately; disk limits apply at the next cleanup).
    ///
    /// ```swift
    /// var config = ImageCache.Configuration()
    /// config.maxDiskSize = 1 << 30
    /// let cache = ImageCache(namespace: "avatars", config: config)
    /// ```
    public struct Configuration: Sendable, Equatable {
        /// Keep decoded images in memory. Default `true`.
        public var shouldCacheImagesInMemory = true
        /// Also keep weak references to images evicted from memory, so one still in use
        /// elsewhere is found without decoding it again. Default `false` (SDWebImage's
        /// default since 5.12).
        public var shouldUseWeakMemoryCache = false
        /// The most bytes of decoded pixels the memory cache holds (an image costs its
        /// ``Image/memoryCost``); 0 means no limit. Default 20% of physical memory, at most
        /// 512 MiB: a server has no memory-warning purge to rely on, unlike iOS.
        public var maxMemoryCost: Int = Configuration.defaultMaxMemoryCost
        /// The most images the memory cache holds; 0 means no limit. Default 0.
        public var maxMemoryCount = 0
        /// Age in seconds after which disk entries expire. Default one week; negative: never;
        /// 0: everything expires at the next cleanup.
        public var maxDiskAge: TimeInterval = 7 * 24 * 3600
        /// The disk space in bytes (allocated blocks, ``DiskCache/Configuration/maxSize``)
        /// above which a cleanup removes the oldest entries until under half of it; 0 means
        /// no limit. Default 0.
        public var maxDiskSize = 0
        /// The date that ages disk entries. Default ``DiskCache/ExpireType/modificationDate``.
        public var diskCacheExpireType: DiskCache.ExpireType = .modificationDate
        /// `fsync` each disk entry before it is renamed into place (SDWebImage's
        /// `diskCacheWritingOptions` = atomic + sync). Default `false`.
        public var syncsDiskWrites = false
        /// How often expired disk data is removed in the background (SDWebImage does it when
        /// the app goes to the background or terminates; a server has neither). `nil` turns
        /// it off. Default one hour.
        public var diskCleanupInterval: Duration? = .seconds(3600)

        /// The defaults listed on each property.
        public init() {}

        /// 20% of physical memory, at most 512 MiB.
        public static var defaultMaxMemoryCost: Int {
            let fifth = ProcessInfo.processInfo.physicalMemory / 5
            return Int(min(fifth, 512 << 20))
        }

        /// The disk part of this configuration, for ``DiskCache``.
        func applying(to disk: DiskCache.Configuration) -> DiskCache.Configuration {
            var disk = disk
            disk.maxAge = maxDiskAge
            disk.maxSize = maxDiskSize
            disk.expireType = diskCacheExpireType
            disk.syncsWrites = syncsDiskWrites
            disk.cleanupInterval = diskCleanupInterval
            return disk
        }
    }
}

/// The old name of ``ImageCache/Configuration``, kept for one release.
@available(*, deprecated, renamed: "ImageCache.Configuration")
public typealias ImageCacheConfig = ImageCache.Configuration
