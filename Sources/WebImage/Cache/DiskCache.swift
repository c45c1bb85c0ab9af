import Foundation
import Synchronization

/// A directory of files, one per key: the second level of ``ImageCache``, which survives
/// restarts.
///
/// Each entry is a file named by ``fileName(forKey:)`` (MD5 of the key plus the URL's
/// extension, SDWebImage's scheme), written atomically: the bytes go to a hidden temporary
/// file in the same directory, which is then renamed into place, so neither a killed
/// process nor a second process sharing the directory ever sees a partial entry. A power
/// loss or a kernel crash is another matter unless ``Configuration/syncsWrites`` is on:
/// without an `fsync`, ext4 and XFS may keep the rename and lose the bytes, leaving an
/// empty or cut entry (a reader that cannot tell should store a length or checksum in the
/// extended data, as the image server's cache does). Reads also find the
/// name without extension (older SDWebImage caches) and then look in the read-only
/// directories. ``removeExpiredData()`` removes entries older than ``Configuration/maxAge``
/// and, above ``Configuration/maxSize``, the oldest until the total is under half of it.
/// Each entry can carry extended data (SDWebImage's `sd_extendedObject` bytes).
///
/// Thread-safe. Every method is **blocking** (it does file I/O on the calling thread): call
/// it off any event loop; ``ImageCache`` runs it on its own I/O queue. Several processes may
/// share the directory: any file may vanish between a listing and its use, and that is
/// treated as a normal outcome, never an error.
///
/// ```swift
/// let disk = DiskCache(namespace: "thumbnails")
/// try disk.setData(jpeg, forKey: "https://example.com/a.jpg")
/// let bytes = disk.data(forKey: "https://example.com/a.jpg")
/// ```
public final class DiskCache: Sendable {
    /// The main directory, where entries are written.
    public let directory: URL
    let path: String

    private struct State {
        var configuration: Configuration
        var cleanupTask: Task<Void, Never>?
        /// Counts the schedules installed, so that a cleanup can tell whether its own
        /// schedule is still the current one (see ``scheduleCleanup(_:)``).
        var cleanupGeneration: UInt64 = 0
    }

    private let state: LockedValue<State>
    /// Held for the whole of one ``removeExpiredData()``, so that cleanups of this cache
    /// never overlap (each would count the entries the other removes, and trim twice).
    let cleanupLock = LockedValue(())

    /// Name of the extended attribute holding an entry's extended data.
    static let extendedAttributeName = "user.swift-web-image.extended"
    /// Name of the extended attribute holding an entry's creation date.
    static let creationAttributeName = "user.swift-web-image.created"
    /// Suffix of sidecar files holding extended data where attributes are unavailable.
    static let sidecarSuffix = ".extended"

    /// Creates a cache in `directory`, which is created on the first write if it does not
    /// exist. Starts the background cleanup when the configuration asks for it.
    public init(directory: URL, configuration: Configuration = Configuration()) {
        self.directory = directory.standardizedFileURL
        path = self.directory.path
        state = LockedValue(State(configuration: configuration))
        scheduleCleanup(configuration.cleanupInterval)
    }

    /// Creates a cache in ``defaultDirectory(namespace:)``.
    public convenience init(namespace: String, configuration: Configuration = Configuration()) {
        self.init(directory: Self.defaultDirectory(namespace: namespace), configuration: configuration)
    }

    deinit {
        state.withLock { $0.cleanupTask?.cancel() }
    }

    /// `$XDG_CACHE_HOME/swift-web-image/<namespace>`, or `~/.cache/swift-web-image/<namespace>`
    /// when `XDG_CACHE_HOME` is unset or not absolute (as the XDG specification says).
    public static func defaultDirectory(namespace: String) -> URL {
        defaultBaseDirectory.appendingPathComponent(folderName(namespace: namespace), isDirectory: true)
    }

    /// The folder a namespace's cache lives in, always one name inside the base folder. A
    /// namespace is a label, not a path: `..` would put the cache (and its cleanup) in the
    /// base folder's parent, and `a/b` in a folder another namespace may own. `%`, `/` and
    /// NUL are percent-encoded, and so are the dots of `.` and `..`; the empty namespace is
    /// `%`, a name no other namespace gives. Every other namespace is its folder's name as
    /// it is.
    public static func folderName(namespace: String) -> String {
        var name = ""
        for scalar in namespace.unicodeScalars {
            switch scalar {
            case "%": name += "%25"
            case "/": name += "%2F"
            case "\u{0}": name += "%00"
            default: name.unicodeScalars.append(scalar)
            }
        }
        switch name {
        case "": return "%"
        case ".": return "%2E"
        case "..": return "%2E%2E"
        default: return name
        }
    }

    /// `$XDG_CACHE_HOME/swift-web-image` (else `~/.cache/swift-web-image`): where every
    /// namespace's directory goes by default.
    public static var defaultBaseDirectory: URL {
        defaultBaseDirectory(environment: ProcessInfo.processInfo.environment, home: FileManager.default.homeDirectoryForCurrentUser)
    }

    static func defaultBaseDirectory(environment: [String: String], home: URL) -> URL {
        let base: URL
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = home.appendingPathComponent(".cache", isDirectory: true)
        }
        return base.appendingPathComponent("swift-web-image", isDirectory: true)
    }

    /// The configuration; setting it takes effect at once (limits apply at the next
    /// cleanup; a changed ``Configuration/cleanupInterval`` restarts the background task).
    public var configuration: Configuration {
        get { state.withLock { $0.configuration } }
        set { updateConfiguration { $0 = newValue } }
    }

    /// Changes the configuration in one step (a read and a write as one, so that a
    /// concurrent change, such as ``addReadOnlyDirectory(_:)``, is not lost between them),
    /// and restarts the background cleanup in that same step when its interval changed:
    /// two changes at once used to leave the cleanup running at the interval of one and
    /// the configuration saying the other's.
    public func updateConfiguration(_ change: (inout Configuration) -> Void) {
        let previous = state.withLock { state -> Task<Void, Never>?? in
            let interval = state.configuration.cleanupInterval
            change(&state.configuration)
            guard state.configuration.cleanupInterval != interval else { return .none }
            return .some(installCleanup(state.configuration.cleanupInterval, in: &state))
        }
        if case .some(let task) = previous { task?.cancel() }
    }

    /// Adds a directory searched, read-only, after the main one (SDWebImage's
    /// `addReadOnlyCachePath`; for an ``ImageCache``, call it on its ``ImageCache/diskCache``).
    /// Adding one twice has no effect.
    public func addReadOnlyDirectory(_ url: URL) {
        state.withLock { state in
            let url = url.standardizedFileURL
            if !state.configuration.readOnlyDirectories.contains(url) {
                state.configuration.readOnlyDirectories.append(url)
            }
        }
    }

    /// The URL of `key`'s entry in the main directory (whether or not it exists).
    public func fileURL(forKey key: String) -> URL {
        directory.appendingPathComponent(Self.fileName(forKey: key), isDirectory: false)
    }

    // MARK: Reading

    /// The bytes stored for `key`, or `nil`. Searches the main directory (with and without
    /// the extension), then the read-only directories. When entries age by
    /// ``ExpireType/accessDate``, a hit in the main directory sets the entry's access date
    /// to now (other expire types skip that system call; the date is then whatever the
    /// mount's atime policy keeps).
    public func data(forKey key: String) -> Data? {
        withEntryFile(forKey: key) { file, _, _ in file.data }
    }

    /// The bytes and the extended data stored for `key`, or `nil`.
    public func entry(forKey key: String) -> Entry? {
        withEntryFile(forKey: key) { file, directory, name in
            Entry(data: file.data, extendedData: readExtendedData(fd: file.fd, directory: directory, name: name),
                  modificationDate: file.modificationDate)
        }
    }

    /// Whether `key` has an entry in any searched directory (with or without extension)
    /// that a read would return: a regular file, readable, within
    /// ``Configuration/maxEntrySize`` (an entry a read refuses is not a hit, or the
    /// original-data route would report one it never serves).
    public func containsData(forKey key: String) -> Bool {
        let limit = configuration.maxEntrySize
        for (directory, name) in candidates(forKey: key) {
            let path = directory + "/" + name
            if let info = FileIO.status(path), (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= limit, access(path, R_OK) == 0 {
                return true
            }
        }
        return false
    }

    /// The extended data stored with `key`'s entry, or `nil` when there is none.
    public func extendedData(forKey key: String) -> Data? {
        withEntryFile(forKey: key, touch: false) { file, directory, name in
            readExtendedData(fd: file.fd, directory: directory, name: name)
        } ?? nil
    }

    // MARK: Writing

    /// Stores `data` for `key` atomically, replacing any previous entry, with optional
    /// extended data stored alongside. Throws the file-system error when the directory
    /// cannot be created or written, and ``WebImageError/responseTooLarge(limit:)`` for
    /// data over ``Configuration/maxEntrySize``, which no read would accept: the previous
    /// entry for `key` is then removed, so a lookup misses rather than finding stale bytes.
    public func setData(_ data: Data, forKey key: String, extendedData: Data? = nil) throws {
        let name = Self.fileName(forKey: key)
        let configuration = configuration
        guard data.count <= configuration.maxEntrySize else {
            removeData(forKey: key)
            throw WebImageError.responseTooLarge(limit: configuration.maxEntrySize)
        }
        try FileIO.writeAtomically(data, to: path + "/" + name, in: path, sync: configuration.syncsWrites) { fd in
            try prepareNewEntry(fd: fd, name: name, extendedData: extendedData, storage: configuration.extendedDataStorage)
        }
    }

    /// What every new entry gets before it is renamed into place, whether written whole
    /// (``setData(_:forKey:extendedData:)``) or as it arrived (``EntryWriter``): its creation
    /// date and its extended data (clearing a previous entry's sidecar).
    func prepareNewEntry(fd: Int32, name: String, extendedData: Data?, storage: ExtendedDataStorage) throws {
        let now = Date().timeIntervalSince1970.bitPattern.littleEndian
        _ = ExtendedAttributes.set(Self.creationAttributeName, value: withUnsafeBytes(of: now) { Array($0) }, fd: fd)
        try writeExtendedData(extendedData, fd: fd, name: name, storage: storage, isNewFile: true)
    }

    /// Replaces the extended data of `key`'s entry in the main directory (`nil` removes it).
    /// Does nothing when there is no such entry.
    public func setExtendedData(_ extendedData: Data?, forKey key: String) throws {
        for name in names(forKey: key) {
            // As a read opens an entry (``FileIO/read(_:limit:mapped:)``): a FIFO or a link
            // in its place is no entry, and must not block the call.
            let fd = open(path + "/" + name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            try writeExtendedData(extendedData, fd: fd, name: name, storage: configuration.extendedDataStorage)
            return
        }
    }

    /// Removes `key`'s entry (both name forms and any sidecar) from the main directory.
    public func removeData(forKey key: String) {
        for name in names(forKey: key) {
            FileIO.remove(path + "/" + name)
            FileIO.remove(sidecarPath(directory: path, name: name))
        }
    }

    /// Removes every entry and sidecar in the main directory, and temporary files older
    /// than ``Configuration/staleTemporaryFileAge``. The directory itself and younger
    /// temporary files stay, so a store running in another process still completes; files
    /// the cache did not make stay too.
    public func removeAllData() {
        let staleAge = configuration.staleTemporaryFileAge
        let now = Date()
        for name in FileIO.names(in: path) {
            let isTemporary = name.hasPrefix(FileIO.temporaryPrefix)
            guard isTemporary || Self.isEntryName(name) || Self.isSidecarName(name),
                  let info = FileIO.status(path + "/" + name), (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if isTemporary, now.timeIntervalSince(info.modificationDate) <= staleAge { continue }
            FileIO.remove(path + "/" + name)
        }
    }

    // MARK: Internals

    /// Starts (or stops, with `nil`) the periodic background cleanup, cancelling the
    /// previous schedule. The task holds the cache weakly, so dropping the cache ends it.
    ///
    /// Each pass waits its turn on ``BlockingIO``'s queue, which a busy process can hold for
    /// seconds, so a pass may only start after the schedule was turned off or replaced; it
    /// then checks that its schedule is still the current one, and does nothing if not
    /// (turned off means no more removals, not "one more, some time later").
    func scheduleCleanup(_ interval: Duration?) {
        // The generation is taken and the task installed under one lock, so two calls at
        // once cannot leave the older schedule installed with the newer generation.
        let previous = state.withLock { installCleanup(interval, in: &$0) }
        previous?.cancel()
    }

    /// Installs the cleanup schedule for `interval` in `state` (under its lock) and returns
    /// the schedule it replaces, for the caller to cancel once the lock is released.
    private func installCleanup(_ interval: Duration?, in state: inout State) -> Task<Void, Never>? {
        let previous = state.cleanupTask
        state.cleanupGeneration &+= 1
        let generation = state.cleanupGeneration
        state.cleanupTask = interval.map { interval in
            Task.detached(priority: .background) { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled, let cache = self else { return }
                    await BlockingIO.run {
                        if cache.isCurrentCleanup(generation) { _ = cache.removeExpiredData() }
                    }
                }
            }
        }
        return previous
    }

    private func isCurrentCleanup(_ generation: UInt64) -> Bool {
        state.withLock { $0.cleanupGeneration == generation }
    }

    /// The entry's name with the extension, then without it (when different).
    private func names(forKey key: String) -> [String] {
        let name = Self.fileName(forKey: key)
        guard let dot = name.firstIndex(of: ".") else { return [name] }
        return [name, String(name[..<dot])]
    }

    /// Every (directory, name) a read tries, in order.
    private func candidates(forKey key: String) -> [(String, String)] {
        let names = names(forKey: key)
        var result = names.map { (path, $0) }
        for directory in configuration.readOnlyDirectories {
            result += names.map { (directory.path, $0) }
        }
        return result
    }

    /// Opens the first existing candidate for `key` and hands it to `body`. A hit in the
    /// main directory refreshes the access date when `touch` is set and entries age by it.
    private func withEntryFile<T>(
        forKey key: String,
        touch: Bool = true,
        _ body: (borrowing FileIO.ReadFile, String, String) -> T
    ) -> T? {
        let touch = touch && configuration.expireType == .accessDate
        for (directory, name) in candidates(forKey: key) {
            let file = FileIO.read(directory + "/" + name, limit: configuration.maxEntrySize, mapped: configuration.readsMemoryMapped)
            guard let file else { continue }
            if touch, directory == path { FileIO.touchAccessDate(file.fd) }
            return body(file, directory, name)
        }
        return nil
    }
}
