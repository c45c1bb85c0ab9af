import Foundation
import Testing
@testable import WebImage

/// ``DiskCache/EntryWriter``: an entry written piece by piece is invisible until committed,
/// then is exactly what ``DiskCache/setData(_:forKey:extendedData:)`` would have stored
/// (name, bytes, creation date, extended data in either storage); an abort, or a writer
/// dropped without a commit, leaves nothing. Real files in a temporary directory.
@Suite struct DiskCacheEntryWriterTests {
    static let key = "https://example.com/photos/a.jpg?size=large"

    static func write(_ chunks: [Data], to writer: DiskCache.EntryWriter) throws {
        for chunk in chunks { try chunk.withUnsafeBytes { try writer.write($0) } }
    }

    @Test(arguments: [DiskCache.ExtendedDataStorage.automatic, .sidecar])
    func aCommittedEntryIsWhatSetDataStores(storage: DiskCache.ExtendedDataStorage) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.extendedDataStorage = storage
        configuration.syncsWrites = true
        let disk = DiskCache(directory: directory.url, configuration: configuration)
        let chunks = (0..<5).map { Data(repeating: UInt8($0), count: 70_000 + $0) }
        let extended = Data("extended".utf8)
        let writer = try disk.makeEntryWriter(forKey: Self.key, extendedData: extended)
        try Self.write(chunks, to: writer)
        // Nothing visible before the commit: only the hidden temporary file.
        #expect(disk.data(forKey: Self.key) == nil)
        #expect(try directory.visibleFiles().isEmpty)
        #expect(writer.byteCount == chunks.reduce(0) { $0 + $1.count })
        let url = try writer.commit()
        #expect(url == disk.fileURL(forKey: Self.key))
        #expect(url.lastPathComponent == DiskCache.fileName(forKey: Self.key))
        #expect(disk.entry(forKey: Self.key) == DiskCache.Entry(data: chunks.reduce(Data(), +), extendedData: extended))
        #expect(disk.recordedCreationDate(path: url.path) != nil)
        #expect(!FileIO.names(in: directory.path).contains { $0.hasPrefix(FileIO.temporaryPrefix) })
    }

    @Test func aCommitReplacesThePreviousEntryAndItsSidecar() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.extendedDataStorage = .sidecar
        let disk = DiskCache(directory: directory.url, configuration: configuration)
        try disk.setData(Data("old".utf8), forKey: Self.key, extendedData: Data("old extended".utf8))
        let writer = try disk.makeEntryWriter(forKey: Self.key)
        try Self.write([Data("new".utf8)], to: writer)
        #expect(disk.data(forKey: Self.key) == Data("old".utf8))  // the old entry until the commit
        try writer.commit()
        #expect(disk.entry(forKey: Self.key) == DiskCache.Entry(data: Data("new".utf8), extendedData: nil))
    }

    /// The writer stops at the entry limit, as ``DiskCache/setData(_:forKey:extendedData:)``
    /// does: a longer body would be written whole and then refused by every read. Nothing
    /// is left, and the key's previous entry, now stale, is removed.
    @Test func aWriteOverTheEntryLimitAbortsAndRemovesTheStaleEntry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.maxEntrySize = 1_000
        let disk = DiskCache(directory: directory.url, configuration: configuration)
        try disk.setData(Data("old".utf8), forKey: Self.key)
        let writer = try disk.makeEntryWriter(forKey: Self.key)
        try Self.write([Data(repeating: 1, count: 600), Data(repeating: 2, count: 400)], to: writer)
        #expect(writer.byteCount == 1_000, "exactly the limit is allowed")
        #expect(throws: WebImageError.responseTooLarge(limit: 1_000)) {
            try Self.write([Data([3])], to: writer)
        }
        #expect(throws: (any Error).self) { try writer.commit() }
        #expect(disk.data(forKey: Self.key) == nil)
        #expect(FileIO.names(in: directory.path).isEmpty, "no entry and no temporary file")
    }

    @Test func anAbortLeavesNothingAndLaterCallsFail() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        let writer = try disk.makeEntryWriter(forKey: Self.key)
        try Self.write([Data(repeating: 1, count: 100_000)], to: writer)
        #expect(FileIO.names(in: directory.path).count == 1)
        writer.abort()
        writer.abort()  // twice is harmless
        #expect(FileIO.names(in: directory.path).isEmpty)
        #expect(throws: (any Error).self) { try Self.write([Data([1])], to: writer) }
        #expect(throws: (any Error).self) { try writer.commit() }
        #expect(disk.data(forKey: Self.key) == nil)
    }

    @Test func aWriterDroppedWithoutACommitRemovesItsTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        do {
            let writer = try disk.makeEntryWriter(forKey: Self.key)
            try Self.write([Data(repeating: 2, count: 10_000)], to: writer)
            #expect(FileIO.names(in: directory.path).count == 1)
        }
        #expect(FileIO.names(in: directory.path).isEmpty)
    }

    @Test func aMissingDirectoryIsCreated() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url.appendingPathComponent("not/yet"))
        let writer = try disk.makeEntryWriter(forKey: Self.key)
        try Self.write([Data("bytes".utf8)], to: writer)
        try writer.commit()
        #expect(disk.data(forKey: Self.key) == Data("bytes".utf8))
    }
}
