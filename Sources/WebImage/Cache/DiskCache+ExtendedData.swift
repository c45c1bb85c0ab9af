import Foundation

extension DiskCache {
    /// One entry as read: its bytes and its extended data.
    public struct Entry: Sendable, Equatable {
        /// The stored bytes, exactly as written.
        public let data: Data
        /// The extended data stored with the entry, if any.
        public let extendedData: Data?
        /// When the entry's file was last written (`nil` for an entry made in memory): its
        /// age, for a reader that must not serve what is older than it allows.
        public let modificationDate: Date?

        /// Creates an entry value.
        public init(data: Data, extendedData: Data?, modificationDate: Date? = nil) {
            self.data = data
            self.extendedData = extendedData
            self.modificationDate = modificationDate
        }

        /// Equal when they hold the same bytes and extended data, whenever written.
        public static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.data == rhs.data && lhs.extendedData == rhs.extendedData
        }
    }

    /// The sidecar file of entry `name` in `directory`: hidden, so listings skip it.
    func sidecarPath(directory: String, name: String) -> String {
        directory + "/" + Self.sidecarName(ofEntry: name)
    }

    /// Extended data of the open entry `fd` (named `name` in `directory`): the attribute,
    /// else the sidecar (where the attribute was refused or did not fit), when the sidecar
    /// was written for this very file (see ``sidecarHeader(of:)``).
    func readExtendedData(fd: Int32, directory: String, name: String) -> Data? {
        if configuration.extendedDataStorage == .automatic,
           case .value(let bytes) = ExtendedAttributes.get(Self.extendedAttributeName, fd: fd) {
            return Data(bytes)
        }
        // Bounded as an entry is: a sidecar may be another process's file too.
        // Saturating: a limit of Int.max ("none") plus the header would trap.
        guard let header = Self.sidecarHeader(of: fd),
              let sidecar = FileIO.read(sidecarPath(directory: directory, name: name),
                                        limit: configuration.maxEntrySize.saturatingAdding(header.count)),
              sidecar.data.starts(with: header) else { return nil }
        // A copy, indexed from 0 as the attribute's value is.
        return Data(sidecar.data.dropFirst(header.count))
    }

    /// What a sidecar starts with: the inode of the entry file it was written for (a rename
    /// keeps it; the device number is left out, since some file systems get a new one at
    /// each mount, and a sidecar is only ever read beside its entry). The sidecar is found
    /// by the entry's name, and two stores of one key, or a store that failed after its
    /// sidecar landed, could pair one version's bytes with another's extended data, for
    /// good; read against the open entry's own numbers, a sidecar of another version is no
    /// extended data. `nil` when the file cannot be examined.
    static func sidecarHeader(of fd: Int32) -> Data? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        var header = Data()
        withUnsafeBytes(of: UInt64(info.st_ino).littleEndian) { header.append(contentsOf: $0) }
        return header
    }

    /// Stores `extendedData` for the entry open as `fd` (named `name` in the main
    /// directory) and clears whatever the other storage held, so a stale value never
    /// outlives a newer one. `nil` removes it.
    ///
    /// Called before the entry is renamed into place, so a new entry appears together
    /// with its attribute. A sidecar is itself written atomically; a crash between the two
    /// renames leaves either an orphan sidecar, which ``removeExpiredData()`` removes once it
    /// is as old as a stale temporary file, or the previous entry next to the new sidecar.
    /// A new file (`isNewFile`) has no attribute yet, so there is none to clear.
    func writeExtendedData(_ extendedData: Data?, fd: Int32, name: String, storage: ExtendedDataStorage, isNewFile: Bool = false) throws {
        let sidecar = sidecarPath(directory: path, name: name)
        guard let extendedData else {
            if !isNewFile { ExtendedAttributes.remove(Self.extendedAttributeName, fd: fd) }
            FileIO.remove(sidecar)
            return
        }
        if storage == .automatic, ExtendedAttributes.set(Self.extendedAttributeName, value: Array(extendedData), fd: fd) {
            FileIO.remove(sidecar)
            return
        }
        if !isNewFile { ExtendedAttributes.remove(Self.extendedAttributeName, fd: fd) }
        guard let header = Self.sidecarHeader(of: fd) else { throw WebImageError.network("cannot examine the entry \(name): \(String(cString: strerror(errno)))") }
        try FileIO.writeAtomically(header + extendedData, to: sidecar, in: path, sync: configuration.syncsWrites)
    }

    /// The creation date recorded when the file at `path` was stored, if the file system
    /// kept the attribute.
    func recordedCreationDate(path: String) -> Date? {
        guard case .value(let bytes) = ExtendedAttributes.get(Self.creationAttributeName, path: path),
              bytes.count == 8 else { return nil }
        let bits = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        let seconds = Double(bitPattern: UInt64(littleEndian: bits))
        return seconds.isFinite ? Date(timeIntervalSince1970: seconds) : nil
    }
}
