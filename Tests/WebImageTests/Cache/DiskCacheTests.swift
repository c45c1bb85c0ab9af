import Foundation
import Testing
@testable import WebImage

@Suite("DiskCache")
struct DiskCacheTests {
    @Test func storesAndReadsBackTheSameBytesUnderTheHashedName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = DiskCache(directory: directory.url)
        let bytes = Data((0..<1000).map { UInt8($0 % 251) })
        try cache.setData(bytes, forKey: "https://a.com/b.jpg?w=2")
        #expect(cache.data(forKey: "https://a.com/b.jpg?w=2") == bytes)
        #expect(try directory.visibleFiles() == ["5dbf08dba455a670c7d70df9ddebf693.jpg"])
        #expect(cache.containsData(forKey: "https://a.com/b.jpg?w=2"))
        #expect(!cache.containsData(forKey: "https://a.com/other.jpg"))
        #expect(cache.data(forKey: "https://a.com/other.jpg") == nil)
    }

    @Test func storingAgainReplacesTheEntry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = DiskCache(directory: directory.url)
        try cache.setData(Data([1, 2, 3]), forKey: "k")
        try cache.setData(Data([4]), forKey: "k")
        #expect(cache.data(forKey: "k") == Data([4]))
        #expect(cache.totalCount == 1)
    }

    @Test func anEntryOverTheReadLimitIsAMiss() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        #expect(configuration.maxEntrySize == 100 * 1024 * 1024)
        let cache = DiskCache(directory: directory.url, configuration: configuration)
        // Written under a larger limit (another process's, or an earlier configuration).
        try cache.setData(Data(count: 10), forKey: "big")
        configuration.maxEntrySize = 9
        cache.configuration = configuration
        try cache.setData(Data(count: 9), forKey: "fits")
        #expect(cache.data(forKey: "big") == nil)
        #expect(cache.entry(forKey: "big") == nil)
        #expect(cache.data(forKey: "fits") == Data(count: 9))
        configuration.maxEntrySize = 10
        cache.configuration = configuration
        #expect(cache.data(forKey: "big") == Data(count: 10))
    }

    /// A store no read would accept is refused, not written: a server whose fetch limit
    /// was over the entry limit used to fetch and rewrite such a source on every request.
    /// The key's previous entry goes too, or a lookup would find the stale bytes.
    @Test func aStoreOverTheEntryLimitThrowsAndRemovesTheStaleEntry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.maxEntrySize = 9
        configuration.extendedDataStorage = .sidecar
        let cache = DiskCache(directory: directory.url, configuration: configuration)
        try cache.setData(Data(count: 9), forKey: "k", extendedData: Data([1]))
        #expect(throws: WebImageError.responseTooLarge(limit: 9)) {
            try cache.setData(Data(count: 10), forKey: "k", extendedData: Data([2]))
        }
        #expect(cache.data(forKey: "k") == nil)
        #expect(FileIO.names(in: directory.path).isEmpty, "no entry, sidecar or temporary file")
    }

    @Test func memoryMappedReadsGiveTheSameBytesAndOutliveAReplacement() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.readsMemoryMapped = true
        let cache = DiskCache(directory: directory.url, configuration: configuration)
        let bytes = Data((0..<100_000).map { UInt8($0 % 251) })
        try cache.setData(bytes, forKey: "k")
        try cache.setData(Data(), forKey: "empty")
        let mapped = try #require(cache.data(forKey: "k"))
        #expect(mapped == bytes)
        #expect(cache.data(forKey: "empty") == Data())
        // A store replaces the file by rename: the mapped old file keeps its bytes.
        try cache.setData(Data([7]), forKey: "k")
        cache.removeData(forKey: "k")
        #expect(mapped == bytes)
        #expect(cache.data(forKey: "k") == nil)
    }

    @Test func emptyDataIsAnEntry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = DiskCache(directory: directory.url)
        try cache.setData(Data(), forKey: "empty")
        #expect(cache.data(forKey: "empty") == Data())
    }

    @Test func createsItsDirectoryOnTheFirstWrite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let nested = directory.url.appendingPathComponent("a/b/c", isDirectory: true)
        let cache = DiskCache(directory: nested)
        #expect(cache.data(forKey: "k") == nil)
        try cache.setData(Data([9]), forKey: "k")
        #expect(cache.data(forKey: "k") == Data([9]))
    }

    @Test func readsFindTheNameWithoutExtension() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = DiskCache(directory: directory.url)
        let key = "https://a.com/b.jpg?w=2"
        // An older SDWebImage cache named files without the extension.
        try Data([7, 7]).write(to: directory.url.appendingPathComponent("5dbf08dba455a670c7d70df9ddebf693"))
        #expect(cache.data(forKey: key) == Data([7, 7]))
        #expect(cache.containsData(forKey: key))
        cache.removeData(forKey: key)
        #expect(try directory.visibleFiles().isEmpty)
    }

    @Test func readOnlyDirectoriesAreSearchedAfterTheMainOne() throws {
        let main = try TemporaryDirectory()
        let shipped = try TemporaryDirectory()
        defer { main.remove(); shipped.remove() }
        try DiskCache(directory: shipped.url).setData(Data([1]), forKey: "both")
        try DiskCache(directory: shipped.url).setData(Data([2]), forKey: "shipped-only")
        let cache = DiskCache(directory: main.url)
        try cache.setData(Data([3]), forKey: "both")
        cache.addReadOnlyDirectory(shipped.url)
        cache.addReadOnlyDirectory(shipped.url)
        #expect(cache.configuration.readOnlyDirectories.count == 1)
        #expect(cache.data(forKey: "both") == Data([3]))
        #expect(cache.data(forKey: "shipped-only") == Data([2]))
        #expect(cache.containsData(forKey: "shipped-only"))
        // Read-only: removing through the main cache leaves the shipped file alone.
        cache.removeData(forKey: "shipped-only")
        #expect(cache.data(forKey: "shipped-only") == Data([2]))
        #expect(cache.totalCount == 1)
    }

    @Test func aFIFOWhereAnEntryOrItsSidecarShouldBeIsAMissAtOnce() async throws {
        // Another process (or a shipped read-only directory) may hold anything; opening a
        // FIFO that has no writer must not block the cache's I/O thread forever.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.extendedDataStorage = .sidecar
        let cache = DiskCache(directory: directory.url, configuration: configuration)
        let entryFIFO = cache.fileURL(forKey: "https://a.com/pipe.png").path
        #expect(mkfifo(entryFIFO, 0o600) == 0)
        try cache.setData(Data([1, 2, 3]), forKey: "https://a.com/b.png")
        let sidecarFIFO = cache.sidecarPath(directory: directory.path, name: DiskCache.fileName(forKey: "https://a.com/b.png"))
        #expect(mkfifo(sidecarFIFO, 0o600) == 0)

        let entryRead = await FIFOWatch.run(releasing: entryFIFO) { cache.data(forKey: "https://a.com/pipe.png") }
        #expect(!entryRead.hung, "reading an entry that is a FIFO blocked")
        #expect(entryRead.value == nil)

        let sidecarRead = await FIFOWatch.run(releasing: sidecarFIFO) { cache.entry(forKey: "https://a.com/b.png") }
        #expect(!sidecarRead.hung, "reading a sidecar that is a FIFO blocked")
        #expect(sidecarRead.value == DiskCache.Entry(data: Data([1, 2, 3]), extendedData: nil))
    }

    @Test func setExtendedDataOnAFIFOReturnsAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = DiskCache(directory: directory.url)
        let entryFIFO = cache.fileURL(forKey: "https://a.com/pipe.png").path
        #expect(mkfifo(entryFIFO, 0o600) == 0)
        let write = await FIFOWatch.run(releasing: entryFIFO) { (try? cache.setExtendedData(Data([1]), forKey: "https://a.com/pipe.png")) != nil }
        #expect(!write.hung, "setting the extended data of a FIFO blocked")
    }

    /// A link planted in the folder would be served, yet never counted, trimmed or cleared
    /// (those see regular files only): it is no entry at all.
    @Test func aSymbolicLinkInPlaceOfAnEntryIsAMiss() throws {
        let directory = try TemporaryDirectory()
        let outside = try TemporaryDirectory()
        defer { directory.remove(); outside.remove() }
        let target = outside.url.appendingPathComponent("secret.txt")
        try Data("not the cache's".utf8).write(to: target)
        let cache = DiskCache(directory: directory.url)
        try FileManager.default.createSymbolicLink(atPath: cache.fileURL(forKey: "k").path, withDestinationPath: target.path)
        #expect(cache.data(forKey: "k") == nil)
        #expect(cache.entry(forKey: "k") == nil)
        #expect(!cache.containsData(forKey: "k"))
    }

    /// A sidecar is bounded as an entry is: a larger one (another process's file) is no
    /// extended data, refused before it is read.
    @Test func aSidecarOverTheEntryLimitIsNotRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.extendedDataStorage = .sidecar
        configuration.maxEntrySize = 100
        let cache = DiskCache(directory: directory.url, configuration: configuration)
        try cache.setData(Data([1]), forKey: "k", extendedData: Data(repeating: 7, count: 100))
        #expect(cache.entry(forKey: "k")?.extendedData == Data(repeating: 7, count: 100))
        try cache.setData(Data([1]), forKey: "k", extendedData: Data(repeating: 7, count: 101))
        #expect(cache.entry(forKey: "k") == DiskCache.Entry(data: Data([1]), extendedData: nil))
    }

    @Test func removeAllDataEmptiesTheDirectoryButKeepsIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = DiskCache(directory: directory.url)
        for i in 0..<5 { try cache.setData(Data([UInt8(i)]), forKey: "k\(i)", extendedData: Data([1])) }
        // Another process's store in progress keeps its temporary file.
        let inProgress = directory.url.appendingPathComponent(".tmp-in-progress").path
        try #require(FileManager.default.createFile(atPath: inProgress, contents: Data([1])))
        cache.removeAllData()
        #expect(cache.totalCount == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [".tmp-in-progress"])
        try cache.setData(Data([1]), forKey: "again")
        #expect(cache.totalCount == 1)
    }

    @Test func totalSizeAndCountCountEntriesOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.extendedDataStorage = .sidecar
        let cache = DiskCache(directory: directory.url, configuration: configuration)
        try cache.setData(Data(count: 100), forKey: "a", extendedData: Data(count: 50))
        try cache.setData(Data(count: 30), forKey: "b")
        try Data(count: 1000).write(to: directory.url.appendingPathComponent(".tmp-leftover"))
        #expect(cache.totalSize == 130)
        #expect(cache.totalCount == 2)
        #expect(cache.entries().map(\.size).sorted() == [30, 100])
    }

    @Test func readsRefreshTheAccessDateButNotTheModificationDate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.expireType = .accessDate
        let cache = DiskCache(directory: directory.url, configuration: configuration)
        try cache.setData(Data([1]), forKey: "k")
        let file = cache.fileURL(forKey: "k").path
        age(file, by: 1000)
        _ = cache.data(forKey: "k")
        let info = try #require(cache.entries().first)
        #expect(abs(info.accessDate.timeIntervalSinceNow) < 60)
        #expect(info.modificationDate.timeIntervalSinceNow < -900)
    }

    /// A review's finding: every regular file in the folder counted as an entry, so a
    /// trim, the expiry and `removeAllData` removed files the cache never made (a folder
    /// shared with other files, or a namespace naming one of the user's). Only names the
    /// cache gives are entries now; the rest stay, and are not counted.
    @Test func filesTheCacheDidNotMakeAreLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.maxAge = 60
        configuration.maxSize = 1
        let cache = DiskCache(directory: directory.url, configuration: configuration)
        try cache.setData(Data(repeating: 1, count: 100), forKey: "k")
        let foreign = ["notes.txt", ".profile", "ABCDEF0123456789ABCDEF0123456789", "0123456789abcdef0123456789abcde"]
        for name in foreign {
            let file = directory.url.appendingPathComponent(name)
            try Data("mine".utf8).write(to: file)
            age(file.path, by: 3600)
        }
        #expect(cache.totalCount == 1)
        #expect(cache.totalSize == 100)
        #expect(cache.entries().map(\.fileName) == [DiskCache.fileName(forKey: "k")])
        cache.removeExpiredData()
        cache.removeAllData()
        #expect(cache.totalCount == 0)
        for name in foreign {
            #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent(name).path), "\(name) was removed")
        }
    }

    /// An entry a read refuses (over the entry size limit) is no hit for `containsData`
    /// either: it said yes, and a disk hit was reported that no read would serve.
    @Test func containsDataAgreesWithTheRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let writer = DiskCache(directory: directory.url)
        try writer.setData(Data(repeating: 1, count: 1_000), forKey: "big")
        var small = DiskCache.Configuration()
        small.maxEntrySize = 100
        let reader = DiskCache(directory: directory.url, configuration: small)
        #expect(reader.data(forKey: "big") == nil)
        #expect(!reader.containsData(forKey: "big"))
        #expect(writer.containsData(forKey: "big"))
    }

    /// A review's finding: moving a cache into a folder inside it renamed nothing (a folder
    /// cannot move into itself), merged the entries into the new folder, then removed the
    /// source, new folder and all. It is refused now, and nothing moves.
    @Test func moveCacheDirectoryIntoItselfIsRefusedAndLosesNothing() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let source = root.url.appendingPathComponent("base", isDirectory: true)
        try DiskCache(directory: source).setData(Data([1]), forKey: "k")
        for destination in [source.appendingPathComponent("default", isDirectory: true), root.url] {
            #expect(throws: WebImageError.self) { try DiskCache.moveCacheDirectory(from: source, to: destination) }
        }
        #expect(DiskCache(directory: source).data(forKey: "k") == Data([1]))
    }

    /// The same through a symbolic link: the check compared the paths as written, so a
    /// destination reached through a link into the source passed it.
    @Test func moveCacheDirectoryIntoItselfThroughALinkIsRefused() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let source = root.url.appendingPathComponent("base", isDirectory: true)
        try DiskCache(directory: source).setData(Data([1]), forKey: "k")
        let link = root.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: source.path)
        for destination in [link.appendingPathComponent("inner", isDirectory: true), link.appendingPathComponent("a/b", isDirectory: true)] {
            #expect(throws: WebImageError.self) { try DiskCache.moveCacheDirectory(from: source, to: destination) }
        }
        #expect(DiskCache(directory: source).data(forKey: "k") == Data([1]))
        #expect(DiskCache(directory: source).totalCount == 1)
    }

    /// A destination that is a link to a folder is merged into that folder: it was taken
    /// for a file, removed, and the source renamed into the link's place.
    @Test func moveCacheDirectoryIntoALinkToAFolderMergesIntoThatFolder() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let source = root.url.appendingPathComponent("old", isDirectory: true)
        let real = root.url.appendingPathComponent("real", isDirectory: true)
        try DiskCache(directory: source).setData(Data([1]), forKey: "moved")
        try DiskCache(directory: real).setData(Data([2]), forKey: "kept")
        let link = root.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: real.path)
        try DiskCache.moveCacheDirectory(from: source, to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path, "the link stays")
        #expect(DiskCache(directory: real).data(forKey: "moved") == Data([1]))
        #expect(DiskCache(directory: real).data(forKey: "kept") == Data([2]))
        #expect(!FileManager.default.fileExists(atPath: source.path))
    }

    /// A merge empties the source of what the cache made and removes the folder only when
    /// nothing else is left: it used to remove the whole folder, a user's file with it.
    @Test func moveCacheDirectoryLeavesAFileTheCacheDidNotMake() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let source = root.url.appendingPathComponent("old", isDirectory: true)
        let destination = root.url.appendingPathComponent("new", isDirectory: true)
        try DiskCache(directory: source).setData(Data([1]), forKey: "both")
        try DiskCache(directory: destination).setData(Data([2]), forKey: "both")
        let notes = source.appendingPathComponent("notes.txt")
        try Data("mine".utf8).write(to: notes)
        try DiskCache.moveCacheDirectory(from: source, to: destination)
        #expect(try Data(contentsOf: notes) == Data("mine".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: source.path) == ["notes.txt"])
        #expect(DiskCache(directory: destination).data(forKey: "both") == Data([2]))
    }

    @Test func moveCacheDirectoryRenamesWhenTheDestinationIsMissing() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let source = root.url.appendingPathComponent("old", isDirectory: true)
        let destination = root.url.appendingPathComponent("new/nested", isDirectory: true)
        try DiskCache(directory: source).setData(Data([1]), forKey: "k")
        try DiskCache.moveCacheDirectory(from: source, to: destination)
        #expect(DiskCache(directory: destination).data(forKey: "k") == Data([1]))
        #expect(!FileManager.default.fileExists(atPath: source.path))
    }

    @Test func moveCacheDirectoryMergesKeepingTheDestinationsEntries() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let source = root.url.appendingPathComponent("old", isDirectory: true)
        let destination = root.url.appendingPathComponent("new", isDirectory: true)
        let old = DiskCache(directory: source)
        let new = DiskCache(directory: destination)
        try old.setData(Data([1]), forKey: "only-old")
        try old.setData(Data([2]), forKey: "both")
        try new.setData(Data([3]), forKey: "both")
        try new.setData(Data([4]), forKey: "only-new")
        try DiskCache.moveCacheDirectory(from: source, to: destination)
        #expect(new.data(forKey: "only-old") == Data([1]))
        #expect(new.data(forKey: "both") == Data([3]))
        #expect(new.data(forKey: "only-new") == Data([4]))
        #expect(new.totalCount == 3)
        #expect(!FileManager.default.fileExists(atPath: source.path))
    }

    /// Sidecars move with their entries. A merge used to move each file on its own, so a
    /// kept destination entry could take the source's extended data, and a moved entry
    /// could find a stale sidecar the destination had left and take that.
    @Test func moveCacheDirectoryMovesEachEntryWithItsOwnExtendedData() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        var configuration = DiskCache.Configuration()
        configuration.extendedDataStorage = .sidecar
        let source = root.url.appendingPathComponent("old", isDirectory: true)
        let destination = root.url.appendingPathComponent("new", isDirectory: true)
        let old = DiskCache(directory: source, configuration: configuration)
        let new = DiskCache(directory: destination, configuration: configuration)
        // Kept: the destination's entry has no extended data, the source's has some.
        try old.setData(Data([1]), forKey: "kept", extendedData: Data("old kept".utf8))
        try new.setData(Data([2]), forKey: "kept")
        // Moved: the destination has only an orphan sidecar under the entry's name.
        try old.setData(Data([3]), forKey: "moved", extendedData: Data("old moved".utf8))
        try old.setData(Data([4]), forKey: "moved-bare")
        for key in ["moved", "moved-bare"] {
            try new.setData(Data([9]), forKey: key, extendedData: Data("stale".utf8))
            FileIO.remove(new.fileURL(forKey: key).path)
        }
        try DiskCache.moveCacheDirectory(from: source, to: destination)
        #expect(new.entry(forKey: "kept") == DiskCache.Entry(data: Data([2]), extendedData: nil))
        #expect(new.entry(forKey: "moved") == DiskCache.Entry(data: Data([3]), extendedData: Data("old moved".utf8)))
        #expect(new.entry(forKey: "moved-bare") == DiskCache.Entry(data: Data([4]), extendedData: nil))
        #expect(!FileManager.default.fileExists(atPath: source.path))
    }
}
