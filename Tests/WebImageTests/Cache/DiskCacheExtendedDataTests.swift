import Foundation
import Testing
@testable import WebImage

@Suite("DiskCache extended data")
struct DiskCacheExtendedDataTests {
    private func cache(in directory: TemporaryDirectory, storage: DiskCache.ExtendedDataStorage) -> DiskCache {
        var configuration = DiskCache.Configuration()
        configuration.extendedDataStorage = storage
        return DiskCache(directory: directory.url, configuration: configuration)
    }

    /// A review's finding: a sidecar was found by the entry's name alone, so two stores of
    /// one key (or a store that failed after its sidecar landed) could leave one version's
    /// bytes with the other's extended data, for good. A sidecar written for another file
    /// is no extended data now. Here the first version's sidecar is put back beside the
    /// second version.
    @Test func aSidecarWrittenForAnotherVersionIsNotRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory, storage: .sidecar)
        try cache.setData(Data([1]), forKey: "k", extendedData: Data("first".utf8))
        let sidecar = directory.url.appendingPathComponent("." + DiskCache.fileName(forKey: "k") + ".extended")
        let firstSidecar = try Data(contentsOf: sidecar)
        try cache.setData(Data([2]), forKey: "k", extendedData: Data("second".utf8))
        #expect(cache.entry(forKey: "k") == DiskCache.Entry(data: Data([2]), extendedData: Data("second".utf8)))
        try firstSidecar.write(to: sidecar)
        #expect(cache.entry(forKey: "k") == DiskCache.Entry(data: Data([2]), extendedData: nil))
    }

    /// A review's finding on the sidecar header: the read's limit was the entry limit plus
    /// the header, which traps for a limit of `Int.max` ("none", as the server's source
    /// limit allows); and the value came back as a slice indexed from 16. Read with no
    /// limit now, it comes back whole and indexed from 0, as the attribute's value does.
    @Test func aSidecarReadsWithNoEntryLimitAndFromIndexZero() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.extendedDataStorage = .sidecar
        configuration.maxEntrySize = .max
        let cache = DiskCache(directory: directory.url, configuration: configuration)
        try cache.setData(Data([1]), forKey: "k", extendedData: Data("format".utf8))
        let extended = try #require(cache.entry(forKey: "k")?.extendedData)
        #expect(extended == Data("format".utf8))
        #expect(extended.startIndex == 0)
    }

    @Test(arguments: [DiskCache.ExtendedDataStorage.automatic, .sidecar])
    func extendedDataRoundTripsWithTheEntry(storage: DiskCache.ExtendedDataStorage) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory, storage: storage)
        let extended = Data("{\"etag\":\"abc\"}".utf8)
        try cache.setData(Data([1, 2, 3]), forKey: "k", extendedData: extended)
        #expect(cache.entry(forKey: "k") == DiskCache.Entry(data: Data([1, 2, 3]), extendedData: extended))
        #expect(cache.extendedData(forKey: "k") == extended)
        #expect(try directory.visibleFiles().count == 1)
    }

    @Test(arguments: [DiskCache.ExtendedDataStorage.automatic, .sidecar])
    func storingWithoutExtendedDataClearsTheOldOne(storage: DiskCache.ExtendedDataStorage) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory, storage: storage)
        try cache.setData(Data([1]), forKey: "k", extendedData: Data([9]))
        try cache.setData(Data([2]), forKey: "k")
        #expect(cache.entry(forKey: "k") == DiskCache.Entry(data: Data([2]), extendedData: nil))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
    }

    @Test(arguments: [DiskCache.ExtendedDataStorage.automatic, .sidecar])
    func setExtendedDataChangesAnExistingEntry(storage: DiskCache.ExtendedDataStorage) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory, storage: storage)
        try cache.setExtendedData(Data([5]), forKey: "missing")
        #expect(cache.extendedData(forKey: "missing") == nil)
        try cache.setData(Data([1]), forKey: "k")
        try cache.setExtendedData(Data([5]), forKey: "k")
        #expect(cache.extendedData(forKey: "k") == Data([5]))
        try cache.setExtendedData(nil, forKey: "k")
        #expect(cache.extendedData(forKey: "k") == nil)
        #expect(cache.data(forKey: "k") == Data([1]))
    }

    @Test func automaticStorageUsesTheExtendedAttributeWhenTheFileSystemHasOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory, storage: .automatic)
        try cache.setData(Data([1]), forKey: "k", extendedData: Data([4, 2]))
        let fd = open(cache.fileURL(forKey: "k").path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        switch ExtendedAttributes.get(DiskCache.extendedAttributeName, fd: fd) {
        case .value(let bytes):
            #expect(bytes == [4, 2])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
        case .unsupported, .absent:
            // No user attributes here (e.g. an old tmpfs): the sidecar must hold it.
            #expect(cache.extendedData(forKey: "k") == Data([4, 2]))
        }
    }

    @Test func extendedDataTooLargeForAnAttributeGoesToTheSidecar() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory, storage: .automatic)
        let large = Data((0..<200_000).map { UInt8($0 % 256) })
        try cache.setData(Data([1]), forKey: "k", extendedData: large)
        #expect(cache.extendedData(forKey: "k") == large)
        cache.removeData(forKey: "k")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// The longest extension a file name keeps still leaves room for the sidecar's name
    /// (`.` + name + `.extended` within 255 bytes): with SDWebImage's 222, a key whose
    /// extension had 213 bytes or more stored its entry but failed on the sidecar.
    @Test(arguments: [DiskCache.maximumExtensionLength, DiskCache.maximumExtensionLength + 1])
    func theLongestKeptExtensionLeavesRoomForTheSidecar(extensionLength: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory, storage: .sidecar)
        let key = "https://a.com/b." + String(repeating: "e", count: extensionLength)
        try cache.setData(Data([1]), forKey: key, extendedData: Data([7]))
        #expect(cache.entry(forKey: key) == DiskCache.Entry(data: Data([1]), extendedData: Data([7])))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.count == 2, "the entry and its sidecar")
        #expect(names.allSatisfy { $0.utf8.count <= 255 })
        cache.removeData(forKey: key)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
