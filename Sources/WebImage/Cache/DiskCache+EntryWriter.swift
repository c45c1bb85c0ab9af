import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension DiskCache {
    /// Writes one entry piece by piece, for bytes that arrive over time (a download streamed
    /// to disk): they go to a hidden temporary file in the cache's directory, and
    /// ``commit()`` renames it into place as the entry for the key, with the same name,
    /// creation date and extended data ``DiskCache/setData(_:forKey:extendedData:)`` gives.
    ///
    /// Memory stays at whatever the caller hands to one ``write(_:)``, however large the
    /// entry. Until the commit, readers see the previous entry (or none); ``abort()`` removes
    /// the temporary file, so a failed or cancelled write never leaves a partial entry. A
    /// process that dies mid-write leaves a hidden temporary file, which
    /// ``DiskCache/removeAllData()`` and the expiry sweep remove once stale.
    ///
    /// **Blocking** (file I/O on the calling thread), and for one writer at a time: calls
    /// must not overlap (the downloader makes them in order on one serial queue). The lock
    /// only makes the type `Sendable`; it is never contended and never held across a system
    /// call that waits on the disk. Thread-safe in that sense.
    ///
    /// ```swift
    /// let writer = try disk.makeEntryWriter(forKey: url.absoluteString)
    /// for chunk in chunks { try chunk.withUnsafeBytes { try writer.write($0) } }
    /// let entry = try writer.commit()
    /// ```
    public final class EntryWriter: Sendable {
        private enum Phase {
            case open(fd: Int32)
            case committed
            case aborted
        }

        private struct State {
            var phase: Phase
            var byteCount = 0
        }

        private let cache: DiskCache
        private let key: String
        private let name: String
        private let temporaryPath: String
        private let extendedData: Data?
        private let state: LockedValue<State>

        /// The entry's file once committed (its name follows ``DiskCache/fileName(forKey:)``).
        public let entryURL: URL

        init(cache: DiskCache, key: String, extendedData: Data?) throws {
            self.cache = cache
            self.key = key
            name = DiskCache.fileName(forKey: key)
            self.extendedData = extendedData
            entryURL = cache.directory.appendingPathComponent(name, isDirectory: false)
            let (fd, path) = try FileIO.createTemporary(in: cache.path)
            temporaryPath = path
            state = LockedValue(State(phase: .open(fd: fd)))
        }

        deinit {
            // A writer dropped without a commit (its owner failed) must not leave its
            // temporary file behind until the next sweep.
            abort()
        }

        /// Bytes written so far.
        public var byteCount: Int { state.withLock { $0.byteCount } }

        /// Appends `bytes` to the entry. Throws the file-system error (the disk is full, the
        /// directory vanished), or ``WebImageError/responseTooLarge(limit:)`` once the entry
        /// would pass ``Configuration/maxEntrySize``, which no read would accept (the
        /// previous entry for the key is then removed, as it is stale); the writer is then
        /// aborted.
        public func write(_ bytes: UnsafeRawBufferPointer) throws {
            guard case .open(let fd) = state.withLock({ $0.phase }) else { throw CocoaError(.fileWriteUnknown) }
            let limit = cache.configuration.maxEntrySize
            guard bytes.count <= limit - byteCount else {
                abort()
                cache.removeData(forKey: key)
                throw WebImageError.responseTooLarge(limit: limit)
            }
            do {
                try FileIO.writeAll(bytes, to: fd)
            } catch {
                abort()
                throw error
            }
            state.withLock { $0.byteCount += bytes.count }
        }

        /// Sets the entry's attributes, `fsync`s it when ``Configuration/syncsWrites`` says
        /// so, and renames it over any previous entry for the key; returns ``entryURL``.
        /// After a failure nothing is left behind (the temporary file is removed).
        @discardableResult
        public func commit() throws -> URL {
            let fd: Int32? = state.withLock { state in
                guard case .open(let fd) = state.phase else { return nil }
                state.phase = .committed
                return fd
            }
            guard let fd else { throw CocoaError(.fileWriteUnknown) }
            let configuration = cache.configuration
            try FileIO.commitTemporary(fd, at: temporaryPath, to: cache.path + "/" + name, sync: configuration.syncsWrites) { fd in
                try cache.prepareNewEntry(fd: fd, name: name, extendedData: extendedData, storage: configuration.extendedDataStorage)
            }
            return entryURL
        }

        /// Drops what was written: closes and removes the temporary file. Does nothing after
        /// ``commit()`` or a previous abort.
        public func abort() {
            let fd: Int32? = state.withLock { state in
                guard case .open(let fd) = state.phase else { return nil }
                state.phase = .aborted
                return fd
            }
            guard let fd else { return }
            close(fd)
            unlink(temporaryPath)
        }
    }

    /// A writer for `key`'s entry, to fill as the bytes arrive (see ``EntryWriter``).
    /// Creates the directory when it is missing; throws the file-system error when the
    /// temporary file cannot be created. Blocking.
    public func makeEntryWriter(forKey key: String, extendedData: Data? = nil) throws -> EntryWriter {
        try EntryWriter(cache: self, key: key, extendedData: extendedData)
    }
}
