import Foundation

extension DiskCache {
    /// What is known about one entry file, from a listing.
    public struct EntryInfo: Sendable, Equatable {
        /// The file name (hash and extension).
        public let fileName: String
        /// Size in bytes.
        public let size: Int
        /// The disk space the entry takes, in bytes: its file's allocated blocks, and its
        /// sidecar's when it has one. What ``Configuration/maxSize`` limits: a 2 KB entry
        /// takes a whole block (4 KB on most file systems), so a folder of small entries
        /// counted by ``size`` could take twice its limit. Unlike ``size``, a sparse file
        /// counts only what it really holds.
        public let allocatedSize: Int
        /// Last read or write.
        public let accessDate: Date
        /// Last store.
        public let modificationDate: Date
        /// First store under this inode (see ``ExpireType/creationDate``).
        public let creationDate: Date
        /// Last status change (see ``ExpireType/changeDate``).
        public let changeDate: Date

        /// The date that `type` ages the entry by.
        public func date(for type: ExpireType) -> Date {
            switch type {
            case .accessDate: accessDate
            case .modificationDate: modificationDate
            case .creationDate: creationDate
            case .changeDate: changeDate
            }
        }
    }

    /// What a cleanup removed.
    public struct CleanupResult: Sendable, Equatable {
        /// Entries removed because they expired.
        public var expiredCount = 0
        /// Entries removed to get under the size limit.
        public var trimmedCount = 0
        /// Disk space freed in all, in bytes (``EntryInfo/allocatedSize`` of each entry removed).
        public var removedSize = 0
        /// Entries that expired, or were picked to get under the size limit, and could not
        /// be removed (a folder the process may not write): a cleanup that freed nothing
        /// must not read as one that had nothing to do.
        public var failedCount = 0

        /// Creates an empty result.
        public init() {}
    }

    /// The entries of the main directory (not the read-only ones); hidden files (temporary
    /// files, sidecars) are not entries. Files removed while listing are left out.
    public func entries() -> [EntryInfo] {
        FileIO.names(in: path).compactMap { info(forName: $0, readCreationDate: true) }
    }

    /// The sum of the entry sizes in the main directory, in bytes (at most `Int.max`: a
    /// sparse file can claim exabytes).
    public var totalSize: Int {
        FileIO.names(in: path).reduce(0) { total, name in
            guard Self.isEntryName(name), let status = FileIO.status(path + "/" + name),
                  (status.st_mode & S_IFMT) == S_IFREG else { return total }
            return total.saturatingAdding(Int(status.st_size))
        }
    }

    /// The number of entries in the main directory.
    public var totalCount: Int {
        FileIO.names(in: path).reduce(0) { count, name in
            guard Self.isEntryName(name), let status = FileIO.status(path + "/" + name),
                  (status.st_mode & S_IFMT) == S_IFREG else { return count }
            return count + 1
        }
    }

    /// One entry as a cleanup listed it.
    struct ListedEntry {
        var name: String
        var size: Int
        var date: Date
    }

    /// Removes expired entries, then, when the rest exceed ``Configuration/maxSize``, the
    /// oldest (by ``Configuration/expireType``) until the total is under half of it; also
    /// removes temporary files left by crashed writers and sidecars whose entry is gone.
    /// Blocking; O(entries). Cleanups of one cache run one at a time (the periodic one, a
    /// caller's, and a server's write-triggered one could otherwise overlap).
    @discardableResult
    public func removeExpiredData() -> CleanupResult {
        cleanupLock.withLock { _ in removeExpiredDataAlone() }
    }

    private func removeExpiredDataAlone() -> CleanupResult {
        let configuration = configuration
        let now = Date()
        let expiration = configuration.maxAge < 0 ? nil : now.addingTimeInterval(-configuration.maxAge)
        let names = FileIO.names(in: path)
        var result = CleanupResult()
        var kept: [ListedEntry] = []
        var total = 0
        // Sidecars first, by their entry's name, so that each entry's space includes its
        // sidecar's.
        let sidecars = Dictionary(names.lazy.compactMap { name in
            Self.entryName(ofSidecar: name).map { entry in (entry, name) }
        }, uniquingKeysWith: { first, _ in first })
        for name in names {
            if name.hasPrefix(FileIO.temporaryPrefix) {
                if let status = FileIO.status(path + "/" + name),
                   now.timeIntervalSince(status.modificationDate) > configuration.staleTemporaryFileAge {
                    FileIO.remove(path + "/" + name)
                }
                continue
            }
            if name.hasPrefix(".") { continue }
            guard let info = info(
                forName: name, readCreationDate: configuration.expireType == .creationDate, hasSidecar: sidecars[name] != nil
            ) else { continue }
            let date = info.date(for: configuration.expireType)
            if let expiration, date <= expiration {
                if remove(name) {
                    result.expiredCount += 1
                    result.removedSize = result.removedSize.saturatingAdding(info.allocatedSize)
                } else if FileIO.status(path + "/" + name) != nil {
                    result.failedCount += 1
                }
                continue
            }
            kept.append(ListedEntry(name: name, size: info.allocatedSize, date: date))
            total = total.saturatingAdding(info.allocatedSize)
        }
        if configuration.maxSize > 0, total > configuration.maxSize {
            let trimmed = trim(kept, total: total, below: configuration.maxSize / 2)
            result.trimmedCount += trimmed.count
            result.removedSize = result.removedSize.saturatingAdding(trimmed.size)
            result.failedCount += trimmed.failed
        }
        for (entryName, sidecar) in sidecars {
            // A store writes the sidecar before it renames its entry into place: a sidecar
            // with no entry is an orphan only once it is as old as a stale temporary file.
            guard FileIO.status(path + "/" + entryName) == nil, let status = FileIO.status(path + "/" + sidecar),
                  now.timeIntervalSince(status.modificationDate) > configuration.staleTemporaryFileAge else { continue }
            FileIO.remove(path + "/" + sidecar)
        }
        return result
    }

    /// Moves every entry of `source` into `destination` (SDWebImage's
    /// `moveCacheDirectoryFromPath:toPath:`): a rename when `destination` does not exist,
    /// otherwise a merge in which entries already in `destination` win, each entry with its
    /// own extended data. What the merge left in `source` that the cache made (entries the
    /// destination had, temporary files, orphan sidecars) is removed, then `source` itself
    /// when nothing else is in it: a file of someone else's there is left alone, as every
    /// other maintenance step leaves it, and so is an entry that could not be moved (with
    /// its sidecar). Across file systems an entry is copied, a new file, and extended data
    /// kept in a sidecar (where attributes are refused) no longer matches it and is dropped.
    /// Both paths are taken where their links lead. Blocking.
    public static func moveCacheDirectory(from source: URL, to destination: URL) throws {
        // Where the paths lead: through a link, one folder inside the other passed the
        // nesting check, and a link to a folder was taken for a file to replace.
        let source = resolvedPath(source.standardizedFileURL.path)
        let destination = resolvedPath(destination.standardizedFileURL.path)
        guard source != destination else { return }
        // One inside the other: the rename fails, the merge moves the destination into
        // itself, and removing the source at the end took the destination with it.
        guard !destination.hasPrefix(source + "/"), !source.hasPrefix(destination + "/") else {
            throw WebImageError.invalidConfiguration("cannot move a cache directory into itself or out of a folder inside it: \(source) to \(destination)")
        }
        guard let sourceStatus = FileIO.status(source), (sourceStatus.st_mode & S_IFMT) == S_IFDIR else { return }
        let manager = FileManager.default
        if let status = FileIO.status(destination), (status.st_mode & S_IFMT) != S_IFDIR {
            try manager.removeItem(atPath: destination)
        }
        if FileIO.status(destination) == nil {
            try FileIO.makeDirectory((destination as NSString).deletingLastPathComponent)
            if rename(source, destination) == 0 { return }
            // Another file system (EXDEV) or a race with another mover: merge instead.
            try FileIO.makeDirectory(destination)
        }
        // An entry and its sidecar move as one: a kept destination entry keeps its own
        // extended data, and a moved entry never picks up a sidecar the destination had
        // (an orphan left by a crash between two renames). The sidecar goes first; when the
        // entry's move then fails, it comes back.
        var keptByDestination: [String] = []
        for name in FileIO.names(in: source) where Self.isEntryName(name) {
            if FileIO.status(destination + "/" + name) != nil {
                keptByDestination.append(name)
                continue
            }
            let sidecar = "/" + sidecarName(ofEntry: name)
            FileIO.remove(destination + sidecar)
            let movedSidecar = FileIO.status(source + sidecar) != nil && move(source + sidecar, to: destination + sidecar)
            if !move(source + "/" + name, to: destination + "/" + name), movedSidecar {
                _ = move(destination + sidecar, to: source + sidecar)
            }
        }
        // What is left that the cache made: the copies of entries the destination had (its
        // own win) and their sidecars, orphan sidecars, temporary files. Entries whose move
        // failed (a full disk across file systems) stay, with their sidecars.
        for name in keptByDestination { FileIO.remove(source + "/" + name) }
        for name in FileIO.names(in: source) where name.hasPrefix(FileIO.temporaryPrefix)
            || entryName(ofSidecar: name).map({ FileIO.status(source + "/" + $0) == nil }) == true {
            FileIO.remove(source + "/" + name)
        }
        rmdir(source)
    }

    /// `path` with every symbolic link resolved, as far as it exists: the deepest existing
    /// folder on it is resolved and the rest (not made yet) appended.
    private static func resolvedPath(_ path: String) -> String {
        var existing = path
        var rest: [String] = []
        while !existing.isEmpty, existing != "/" {
            if let resolved = FileIO.resolvedPath(existing) {
                return ([resolved] + rest.reversed()).joined(separator: "/")
            }
            rest.append((existing as NSString).lastPathComponent)
            existing = (existing as NSString).deletingLastPathComponent
        }
        return path
    }

    /// Renames `source` to `target`, or copies it across file systems; `false` when neither
    /// worked, and then a partial copy at `target` is removed.
    private static func move(_ source: String, to target: String) -> Bool {
        if rename(source, target) == 0 { return true }
        do {
            try FileManager.default.moveItem(atPath: source, toPath: target)
            return true
        } catch {
            // A copy cut short (a full disk) is removed; a file another mover put there first
            // is not this call's.
            if FileIO.status(source) != nil, (error as? CocoaError)?.code != .fileWriteFileExists { FileIO.remove(target) }
            return false
        }
    }

    /// Lists one entry file; `nil` for any other name (hidden files, files the cache did
    /// not make), non-regular files and files gone. `hasSidecar` says whether the caller
    /// listed its sidecar, whose space counts in ``EntryInfo/allocatedSize``; `nil`: it is
    /// looked for.
    private func info(forName name: String, readCreationDate: Bool, hasSidecar: Bool? = nil) -> EntryInfo? {
        guard Self.isEntryName(name) else { return nil }
        let filePath = path + "/" + name
        guard let status = FileIO.status(filePath), (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modification = status.modificationDate
        let creation = readCreationDate ? (recordedCreationDate(path: filePath) ?? modification) : modification
        var allocated = status.allocatedSize
        if hasSidecar ?? true, let sidecar = FileIO.status(sidecarPath(directory: path, name: name)),
           (sidecar.st_mode & S_IFMT) == S_IFREG {
            allocated = allocated.saturatingAdding(sidecar.allocatedSize)
        }
        return EntryInfo(
            fileName: name,
            size: Int(status.st_size),
            allocatedSize: allocated,
            accessDate: status.accessDate,
            modificationDate: modification,
            creationDate: creation,
            changeDate: status.changeDate
        )
    }

    /// Removes the oldest of `listed` (which total `total` bytes) until the total is under
    /// `target`; returns how many it removed and their bytes, and how many it could not
    /// remove. An entry gone since the listing (another process's cleanup of the same
    /// folder took it) counts as removed toward the target, not in the result: counting it
    /// as still there made two cleanups at once each remove half, and together empty the
    /// cache.
    func trim(_ listed: [ListedEntry], total: Int, below target: Int) -> (count: Int, size: Int, failed: Int) {
        var total = total
        var removed = (count: 0, size: 0, failed: 0)
        for entry in listed.sorted(by: { $0.date < $1.date }) {
            if remove(entry.name) {
                removed.count += 1
                removed.size = removed.size.saturatingAdding(entry.size)
                total -= entry.size
            } else if FileIO.status(path + "/" + entry.name) == nil {
                total -= entry.size
            } else {
                removed.failed += 1
            }
            if total < target { break }
        }
        return removed
    }

    /// Removes entry `name` and its sidecar; `true` when this call removed the entry (a
    /// file another process removed first is not counted).
    private func remove(_ name: String) -> Bool {
        let removed = FileIO.remove(path + "/" + name)
        FileIO.remove(sidecarPath(directory: path, name: name))
        return removed
    }
}
