import Crypto
import Foundation
import NIOCore
import WebImage

/// Encoded bytes by key, in memory, on disk, or both: the server's result cache and its
/// source cache.
///
/// Built from the library's two cache levels: a ``MemoryCache`` (LRU, charged by byte
/// count) and a ``DiskCache`` (files written to a temporary name, then renamed, so a crash
/// never leaves half a file). Unlike ``ImageCache``, whose memory level holds decoded
/// images, both levels hold the encoded bytes a response sends. Disk methods block: call
/// them from a thread that may. Thread-safe.
///
/// ```swift
/// let cache = ByteCache(levels: [.memory, .disk], directory: dir, memoryLimit: 64 << 20)
/// cache.store(Entry(data: jpeg, format: .jpeg), forKey: key)
/// let hit = cache.memoryEntry(forKey: key) ?? cache.diskEntry(forKey: key)
/// ```
public final class ByteCache: Sendable {
    /// One cached item: the bytes, their format, and for a result its entity tag.
    public struct Entry: Sendable, Equatable {
        /// The bytes, kept as the buffer a response body sends: a hit is written to the
        /// socket without copying them.
        public var bytes: ByteBuffer
        public var format: ImageFormat
        /// The strong `ETag` of the bytes (quoted), computed once when the entry is made so
        /// that a cache hit does not hash them again; `nil` where no one asked for it.
        public var etag: String?
        /// For a result, the file name its response suggests (`Content-Disposition`): the
        /// source's name with the result's extension, kept with the bytes so that a hit
        /// needs no parse of the URL.
        public var filename: String?

        public init(data: Data, format: ImageFormat, etag: String? = nil, filename: String? = nil) {
            self.bytes = ByteBuffer(bytes: data)
            self.format = format
            self.etag = etag
            self.filename = filename
        }

        /// A copy of the bytes.
        public var data: Data { Data(bytes.readableBytesView) }

        /// A strong entity tag for `data`: the first 16 bytes of its SHA-256, in hex and
        /// quoted. The same bytes always give the same tag, on every node.
        public static func etag<Bytes: DataProtocol>(of data: Bytes) -> String {
            "\"" + String(hex: SHA256.hash(data: data).prefix(16)) + "\""
        }
    }

    /// Where a lookup found its entry.
    public enum Level: String, Sendable {
        case memory, disk
    }

    /// What a disk entry's extended data says of its bytes: three lines, the format, the
    /// suggested file name (empty for none) and the byte count, checked on every read. A
    /// change of this layout must change ``layoutVersion``, which is part of the disk
    /// namespaces, so that no process reads another layout.
    struct StoredDescription: Equatable {
        /// Part of both disk namespaces (``ImageServer/Configuration/resultCacheNamespace``).
        static let layoutVersion = 2

        var format: ImageFormat?
        var filename: String?
        var byteCount: Int

        init(of entry: Entry) {
            format = entry.format
            filename = entry.filename
            byteCount = entry.bytes.readableBytes
        }

        /// `nil` unless `data` holds at least the three lines, the last a count. The file
        /// name is everything between the first line and the last (a library user's name
        /// may hold a newline; the server's never does).
        init?(parsing data: Data) {
            let text = String(decoding: data, as: UTF8.self)
            guard let firstBreak = text.firstIndex(of: "\n"), let lastBreak = text.lastIndex(of: "\n"), firstBreak < lastBreak,
                  let count = Int(text[text.index(after: lastBreak)...]), count >= 0 else { return nil }
            format = ImageFormat(rawValue: String(text[..<firstBreak]))
            let name = text[text.index(after: firstBreak)..<lastBreak]
            filename = name.isEmpty ? nil : String(name)
            byteCount = count
        }

        var encoded: Data {
            Data("\(format?.rawValue ?? "")\n\(filename ?? "")\n\(byteCount)".utf8)
        }
    }

    /// The levels in use.
    public let levels: ImageServer.Configuration.CacheLevels
    /// Whether entries read from disk get their ``Entry/etag`` (the file keeps only bytes
    /// and format).
    public let tagsEntries: Bool
    /// What every disk key starts with: a digest of the settings the entries were made
    /// under (see ``ImageServer/Configuration/resultCacheNamespace``). Files outlive the
    /// process, and a server restarted under a stricter policy must not serve what only the
    /// old one would have fetched. Memory keys go without: memory dies with its settings.
    public let diskNamespace: String
    /// Entries in memory, each with when it was made (or written to disk, for one read
    /// back from there).
    private let memory: MemoryCache<String, Stamped>
    private let disk: DiskCache?
    /// The oldest an entry may be to be served, from any level: the disk level's
    /// ``DiskCache/Configuration/maxAge`` (`WEBIMAGE_CACHE_DISK_MAX_AGE`); `nil` when it is
    /// negative (never). Without it a popular result stayed in memory for as long as it
    /// was asked for, a source changed at its origin was never seen again, and a disk hit
    /// of a day-old entry started a new life in memory; only a restart of every node
    /// helped. The disk level's cleanup removes old files only every ten minutes, so
    /// reading checks their age too.
    let maxAge: TimeInterval?

    private struct Stamped: Sendable {
        var entry: Entry
        var storedAt: Date
    }
    /// Bytes written to disk since the last size check, and whether one is running.
    private let diskWrites = LockedValue((bytes: 0, isChecking: false))

    /// How often the server's disk levels remove expired entries and trim to their size.
    public static let diskCleanupInterval: Duration = .seconds(600)

    /// Creates a cache with `levels`; the disk level lives in `directory`, bounded by `disk`
    /// (its size and age limits, checked every ``DiskCache/Configuration/cleanupInterval``
    /// and once now, in the background, so a server restarted more often than that still
    /// trims what earlier runs left). With `tagsEntries`, an entry read from disk has its
    /// ``Entry/etag`` computed on the way in. Disk keys start with `diskNamespace`, so
    /// entries stored under another namespace are never found (the size and age limits
    /// remove them in time).
    public init(
        levels: ImageServer.Configuration.CacheLevels,
        directory: URL,
        memoryLimit: Int,
        disk diskConfiguration: DiskCache.Configuration = DiskCache.Configuration(),
        tagsEntries: Bool = false,
        diskNamespace: String = ""
    ) {
        self.levels = levels
        self.tagsEntries = tagsEntries
        self.diskNamespace = diskNamespace
        memory = MemoryCache(totalCostLimit: max(1, memoryLimit))
        maxAge = diskConfiguration.maxAge >= 0 ? diskConfiguration.maxAge : nil
        let disk = levels.contains(.disk) ? DiskCache(directory: directory, configuration: diskConfiguration) : nil
        self.disk = disk
        if let disk, diskConfiguration.maxSize > 0 || diskConfiguration.maxAge >= 0 {
            BlockingIO.start { _ = disk.removeExpiredData() }
        }
    }

    /// The disk level's limits; `nil` without a disk level.
    public var diskConfiguration: DiskCache.Configuration? { disk?.configuration }

    /// Whether any level is on.
    public var isEnabled: Bool { !levels.isEmpty }

    /// The entry for `key` in memory, unless it is older than ``maxAge`` (then dropped);
    /// never blocks.
    public func memoryEntry(forKey key: String) -> Entry? {
        guard levels.contains(.memory), let stamped = memory.value(forKey: key) else { return nil }
        guard isFresh(stamped.storedAt) else {
            memory.removeValue(forKey: key)
            return nil
        }
        return stamped.entry
    }

    /// Whether something made at `date` may still be served.
    private func isFresh(_ date: Date) -> Bool {
        guard let maxAge else { return true }
        return Date().timeIntervalSince(date) < maxAge
    }

    /// The entry for `key` on disk, promoted to memory when that level is on. Blocking
    /// (reads a file).
    public func diskEntry(forKey key: String) -> Entry? {
        // One read of the entry and its extended data, from one open file: two lookups
        // could pair one version's bytes with another's format when a store or a trim
        // landed between them.
        guard let disk, let stored = disk.entry(forKey: diskNamespace + key) else { return nil }
        let writtenAt = stored.modificationDate ?? Date()
        guard isFresh(writtenAt) else { return nil }
        let data = stored.data
        guard let description = stored.extendedData.flatMap(Self.StoredDescription.init(parsing:)),
              description.byteCount == data.count else {
            // Not what was stored: the file lost its bytes, or was written by no ByteCache.
            // Files are renamed into place without an fsync, and after a power loss a file
            // renamed to a new name can come back empty (ext4, XFS) while its attribute
            // survives: served, it was a 200 of nothing, cached downstream for a year.
            disk.removeData(forKey: diskNamespace + key)
            return nil
        }
        let format = description.format ?? ImageFormat(sniffing: data)
        let entry = Entry(data: data, format: format, etag: tagsEntries ? Entry.etag(of: data) : nil, filename: description.filename)
        if levels.contains(.memory) { memory.setValue(Stamped(entry: entry, storedAt: writtenAt), forKey: key, cost: Self.cost(of: entry, key: key)) }
        return entry
    }

    /// Whether a lookup may need ``diskEntry(forKey:)`` after a memory miss.
    public var hasDiskLevel: Bool { disk != nil }

    /// What an entry is charged against the memory limit: its bytes and its key's. A key
    /// can be as large as its bytes (a source cache keyed by a whole `data:` URL), and
    /// the cache holds both.
    static func cost(of entry: Entry, key: String) -> Int {
        entry.bytes.readableBytes + key.utf8.count
    }

    /// Stores `entry` in every level in use. Blocking (writes a file). A failed disk write
    /// (the disk is full, or the entry is over the disk level's
    /// ``DiskCache/Configuration/maxEntrySize``) loses only the cached copy, never the
    /// response: it is reported, not thrown.
    @discardableResult
    public func store(_ entry: Entry, forKey key: String) -> Bool {
        if levels.contains(.memory) { memory.setValue(Stamped(entry: entry, storedAt: Date()), forKey: key, cost: Self.cost(of: entry, key: key)) }
        guard let disk else { return true }
        do {
            try disk.setData(entry.data, forKey: diskNamespace + key, extendedData: StoredDescription(of: entry).encoded)
        } catch {
            return false
        }
        checkDiskSizeIfDue(afterWriting: entry.bytes.readableBytes, to: disk)
        return true
    }

    /// Starts a size check in the background once a quarter of the disk level's size limit
    /// has been written since the last one. The periodic check alone (every
    /// ``diskCleanupInterval``) let a level grow by whatever arrived in ten minutes: 36 GB
    /// over a 1 GiB limit at two 30 MB results a second. A check trims to half the limit
    /// when the level is over it, so the level stays within about 1.25 times its limit
    /// however fast results arrive (plus what lands while a check runs).
    private func checkDiskSizeIfDue(afterWriting count: Int, to disk: DiskCache) {
        let limit = disk.configuration.maxSize
        guard limit > 0 else { return }
        let quarter = max(1, limit / 4)
        let isDue = diskWrites.withLock { writes in
            writes.bytes += count
            guard writes.bytes >= quarter, !writes.isChecking else { return false }
            writes = (0, true)
            return true
        }
        guard isDue else { return }
        BlockingIO.start {
            // Again while another quarter arrived during the check (it would otherwise wait
            // for the next store).
            repeat {
                disk.removeExpiredData()
            } while self.diskWrites.withLock { writes in
                guard writes.bytes >= quarter else {
                    writes.isChecking = false
                    return false
                }
                writes.bytes = 0
                return true
            }
        }
    }
}
