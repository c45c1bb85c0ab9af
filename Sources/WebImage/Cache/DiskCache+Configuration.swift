import Foundation

extension DiskCache {
    /// Which date of an entry decides its age for ``Configuration/maxAge`` and its place in
    /// the oldest-first order of a size trim (SDWebImage's `SDImageCacheConfigExpireType`).
    public enum ExpireType: String, Sendable, CaseIterable {
        /// The last time the entry was read or written. Reads set it explicitly, so it is
        /// right on `noatime` and `relatime` mounts too.
        case accessDate
        /// The last time the entry was stored. The default, as in SDWebImage.
        case modificationDate
        /// The first time the entry was stored under its current inode; since every store
        /// replaces the file, this is the time of the last store unless the file was moved
        /// in from elsewhere. Kept in the `user.swift-web-image.created` extended attribute
        /// (Linux exposes no portable birth time); on a file system without user extended
        /// attributes it falls back to the modification date.
        case creationDate
        /// The last change of the entry file's status (`ctime`): a store, and any change of
        /// its attributes, links or name (SDWebImage's `changeDate`). Reads do not change
        /// it, since only ``accessDate`` makes a read touch the file.
        case changeDate
    }

    /// Where per-entry extended data is kept.
    public enum ExtendedDataStorage: String, Sendable {
        /// In the extended attribute `user.swift-web-image.extended` when the file system
        /// accepts it (and the value fits), otherwise in a sidecar file. The default.
        case automatic
        /// Always in a hidden sidecar file `.<entry name>.extended` beside the entry.
        case sidecar
    }

    /// How a ``DiskCache`` keeps, ages and trims its files: SDWebImage's disk fields of
    /// `SDImageCacheConfig`.
    ///
    /// ```swift
    /// var configuration = DiskCache.Configuration()
    /// configuration.maxAge = 3 * 24 * 3600
    /// configuration.maxSize = 500 << 20
    /// ```
    public struct Configuration: Sendable, Equatable {
        /// The age in seconds after which an entry is removed by ``DiskCache/removeExpiredData()``.
        /// Default one week. Negative: never expire. 0: everything expires.
        public var maxAge: TimeInterval = 7 * 24 * 3600
        /// The disk space in bytes (the entries' allocated blocks with their sidecars,
        /// ``DiskCache/EntryInfo/allocatedSize``, as SDWebImage counts
        /// `NSURLTotalFileAllocatedSizeKey`) above which ``DiskCache/removeExpiredData()``
        /// removes entries oldest first until the total is under half of it. Default 0: no
        /// limit.
        public var maxSize: Int = 0
        /// The date that ages an entry. Default ``ExpireType/modificationDate``.
        public var expireType: ExpireType = .modificationDate
        /// Directories searched, read-only, after the main one (for example caches shipped
        /// with an application). Default none.
        public var readOnlyDirectories: [URL] = []
        /// `fsync` every entry before it is renamed into place, so it survives a power
        /// loss, at the price of a much slower store. Default `false`: a killed process
        /// never leaves a partial entry, but a power loss or kernel crash can leave a
        /// recent one empty or cut (the rename reached the disk, the bytes did not).
        public var syncsWrites = false
        /// Where extended data goes. Default ``ExtendedDataStorage/automatic``.
        public var extendedDataStorage: ExtendedDataStorage = .automatic
        /// How often expired data is removed in the background; `nil` (the default) removes
        /// it only when ``DiskCache/removeExpiredData()`` is called.
        public var cleanupInterval: Duration?
        /// The largest entry, in bytes. A read refuses a larger file (written by another
        /// process, or into a read-only directory) as a miss, before anything is allocated
        /// for it; a write of more throws, since no read would accept it. Default 100 MiB,
        /// the downloader's own response limit.
        public var maxEntrySize = 100 * 1024 * 1024
        /// Read entries by mapping them into memory instead of copying them (SDWebImage's
        /// `diskCacheReadingOptions` with `mappedIfSafe`): a hit costs no copy and the
        /// kernel may drop the pages under memory pressure. Safe for the files this cache
        /// writes, which are replaced by rename and never changed in place; a file another
        /// program truncates while it is mapped would fault the process. Default `false`.
        public var readsMemoryMapped = false
        /// Temporary files older than this (left by a process that died while writing) are
        /// removed by ``DiskCache/removeExpiredData()``. Default one hour.
        public var staleTemporaryFileAge: TimeInterval = 3600

        /// The defaults listed on each property.
        public init() {}
    }
}
