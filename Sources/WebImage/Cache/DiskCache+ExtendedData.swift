import Foundation

extension DiskCache {
    /// One entry as read: its bytes and its extended data.
    public struct Entry: Sendable, Equatable {
        /// The stored bytes, exactly as written.
        public let data: Data
        /// The extended data stored with the entry, if any.
        public let extendedData: Data?

        /// Creates an entry value.
        public init(data: Data, extendedData: Data?) {
            self.data = data
            self.extendedData = extendedData
        }
    }

    /// The sidecar file of entry `name` in `directory`: hidden, so listings skip it.
    func sidecarPath(directory: String, name: String) -> String {
        directory + "/." + name + Self.sidecarSuffix
    }

    /// Extended data of the open entry `fd` (named `name` in `directory`): the attribute,
    /// else the sidecar (where the attribute was refused or did not fit).
    func readExtendedData(fd: Int32, directory: String, name: String) -> Data? {
        if configuration.extendedDataStorage == .automatic,
           case .value(let bytes) = ExtendedAttributes.get(Self.extendedAttributeName, fd: fd) {
            return Data(bytes)
        }
        // Bounded as an entry is: a sidecar may be another process's file too.
        guard let sidecar = FileIO.read(sidecarPath(directory: directory, name: name), limit: configuration.maxEntrySize) else { return nil }
        return sidecar.data
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
        try FileIO.writeAtomically(extendedData, to: sidecar, in: path, sync: configuration.syncsWrites)
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
