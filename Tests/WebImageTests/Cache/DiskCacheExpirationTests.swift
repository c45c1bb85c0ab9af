import Foundation
import Testing
@testable import WebImage

@Suite("DiskCache expiration and trimming")
struct DiskCacheExpirationTests {
    private func cache(in directory: TemporaryDirectory, _ change: (inout DiskCache.Configuration) -> Void) -> DiskCache {
        var configuration = DiskCache.Configuration()
        change(&configuration)
        return DiskCache(directory: directory.url, configuration: configuration)
    }

    @Test func maxAgeOfOneSecondRemovesOnlyOlderEntries() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory) { $0.maxAge = 1 }
        for key in ["old1", "old2", "fresh"] { try cache.setData(Data([1, 2]), forKey: key) }
        age(cache.fileURL(forKey: "old1").path, by: 2)
        age(cache.fileURL(forKey: "old2").path, by: 3600)
        let unit = try #require(cache.entries().first).allocatedSize
        let result = cache.removeExpiredData()
        #expect(result.expiredCount == 2)
        #expect(result.removedSize == 2 * unit, "the disk space the two entries took")
        #expect(cache.containsData(forKey: "fresh"))
        #expect(!cache.containsData(forKey: "old1"))
        #expect(!cache.containsData(forKey: "old2"))
    }

    /// An entry's sidecar takes space too: it counts in the entry's allocated size.
    @Test func anEntrysSidecarCountsInItsSpace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory) { $0.extendedDataStorage = .sidecar }
        try cache.setData(Data([1, 2, 3, 4]), forKey: "plain")
        try cache.setData(Data([1, 2, 3, 4]), forKey: "extended", extendedData: Data("format=png".utf8))
        let entries = Dictionary(uniqueKeysWithValues: cache.entries().map { ($0.fileName, $0) })
        let plain = try #require(entries[cache.fileURL(forKey: "plain").lastPathComponent])
        let extended = try #require(entries[cache.fileURL(forKey: "extended").lastPathComponent])
        #expect(plain.size == extended.size)
        #expect(extended.allocatedSize == 2 * plain.allocatedSize, "the entry's block and its sidecar's")
    }

    @Test func maxAgeZeroExpiresEverythingAndNegativeNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let never = cache(in: directory) { $0.maxAge = -1 }
        for i in 0..<3 { try never.setData(Data([1]), forKey: "k\(i)") }
        age(never.fileURL(forKey: "k0").path, by: 10 * 365 * 24 * 3600)
        #expect(never.removeExpiredData().expiredCount == 0)
        #expect(never.totalCount == 3)
        let always = cache(in: directory) { $0.maxAge = 0 }
        #expect(always.removeExpiredData().expiredCount == 3)
        #expect(always.totalCount == 0)
    }

    /// Five 4-byte entries, `k0` the oldest, in a cache limited to the space of two and a
    /// half of them (the limit counts allocated blocks: one each here); returns that space.
    private func fiveAgedEntries(in directory: TemporaryDirectory) throws -> (DiskCache, unit: Int) {
        let cache = cache(in: directory) { _ in }
        for i in 0..<5 {
            try cache.setData(Data([1, 2, 3, 4]), forKey: "k\(i)")
            age(cache.fileURL(forKey: "k\(i)").path, by: Double(100 - i * 10))
        }
        let unit = try #require(cache.entries().first).allocatedSize
        cache.updateConfiguration { $0.maxSize = 2 * unit + unit / 2 }
        return (cache, unit)
    }

    /// The limit is disk space: 4-byte entries take a block each, and a limit of ten
    /// bytes (what their sizes add up to twice) let them take a thousand times it.
    @Test func maxSizeCountsTheBlocksEntriesTakeNotTheirLength() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (cache, unit) = try fiveAgedEntries(in: directory)
        #expect(unit >= 512, "a non-empty file takes at least one 512-byte unit")
        #expect(cache.entries().allSatisfy { $0.size == 4 && $0.allocatedSize == unit })
        cache.updateConfiguration { $0.maxSize = 40 }
        cache.removeExpiredData()
        #expect(cache.totalCount == 0, "five blocks are over a 40-byte limit")
    }

    @Test func maxSizeOfTenBytesRemovesOldestUntilUnderHalf() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Five entries of a block each over a limit of two and a half: trimmed oldest first
        // to under one and a quarter.
        let (cache, unit) = try fiveAgedEntries(in: directory)
        let result = cache.removeExpiredData()
        #expect(result.trimmedCount == 4)
        #expect(result.removedSize == 4 * unit)
        #expect(cache.totalSize == 4)
        #expect(cache.containsData(forKey: "k4"))
    }

    /// Two cleanups of one folder at once (two processes, or the periodic one beside a
    /// server's write-triggered one) list the same entries. The entries the other removed
    /// meanwhile are gone, not still there: counted as still there, each cleanup removed
    /// half the cache on top of the other's half, and together they emptied it.
    @Test func entriesAnotherCleanupRemovedCountTowardTheTrim() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (cache, _) = try fiveAgedEntries(in: directory)
        let listed = cache.entries().map { DiskCache.ListedEntry(name: $0.fileName, size: $0.size, date: $0.accessDate) }
        #expect(listed.count == 5)
        // The other cleanup removes the two oldest after this one listed them.
        for i in 0..<2 { try FileManager.default.removeItem(at: cache.fileURL(forKey: "k\(i)")) }
        let trimmed = cache.trim(listed, total: 20, below: 5)
        #expect(trimmed.count == 2 && trimmed.size == 8)
        #expect(cache.containsData(forKey: "k4"), "the newest entry was trimmed too: the cache was emptied")
        #expect(cache.totalSize == 4)
    }

    /// Cleanups of one cache run one at a time: many at once leave what one leaves.
    @Test func concurrentCleanupsOfOneCacheTrimOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory) { _ in }
        for i in 0..<100 {
            try cache.setData(Data(repeating: 7, count: 10), forKey: "k\(i)")
            age(cache.fileURL(forKey: "k\(i)").path, by: Double(1_000 - i))
        }
        let unit = try #require(cache.entries().first).allocatedSize
        cache.updateConfiguration { $0.maxSize = 40 * unit }
        // 100 blocks over 40: trimmed oldest first to under 20, the newest 19 kept.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { await BlockingIO.run { _ = cache.removeExpiredData() } } }
        }
        #expect(cache.totalCount == 19)
        #expect(cache.containsData(forKey: "k99") && !cache.containsData(forKey: "k80"))
    }

    @Test func sizeTrimStopsAsSoonAsTheTotalIsUnderHalf() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory) { _ in }
        for i in 0..<12 {
            try cache.setData(Data(count: 10), forKey: "k\(i)")
            age(cache.fileURL(forKey: "k\(i)").path, by: Double(1000 - i))
        }
        let unit = try #require(cache.entries().first).allocatedSize
        cache.updateConfiguration { $0.maxSize = 10 * unit }
        // 12 blocks > 10: remove oldest until < 5, i.e. keep the newest four.
        cache.removeExpiredData()
        #expect(cache.totalSize == 40)
        for i in 8..<12 { #expect(cache.containsData(forKey: "k\(i)")) }
    }

    @Test func accessDateExpiryKeepsEntriesThatWereRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory) {
            $0.maxAge = 60
            $0.expireType = .accessDate
        }
        try cache.setData(Data([1]), forKey: "read")
        try cache.setData(Data([1]), forKey: "unread")
        age(cache.fileURL(forKey: "read").path, by: 3600)
        age(cache.fileURL(forKey: "unread").path, by: 3600)
        #expect(cache.data(forKey: "read") != nil)
        cache.removeExpiredData()
        #expect(cache.containsData(forKey: "read"))
        #expect(!cache.containsData(forKey: "unread"))
    }

    @Test func modificationDateExpiryIgnoresReads() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory) { $0.maxAge = 60 }
        try cache.setData(Data([1]), forKey: "read")
        age(cache.fileURL(forKey: "read").path, by: 3600)
        #expect(cache.data(forKey: "read") != nil)
        cache.removeExpiredData()
        #expect(!cache.containsData(forKey: "read"))
    }

    @Test func creationDateExpiryUsesTheRecordedStoreTime() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory) {
            $0.maxAge = 60
            $0.expireType = .creationDate
        }
        try cache.setData(Data([1]), forKey: "k")
        // Back-dating the modification date does not change when the entry was created.
        age(cache.fileURL(forKey: "k").path, by: 3600)
        cache.removeExpiredData()
        #expect(cache.containsData(forKey: "k"))
        let info = try #require(cache.entries().first)
        #expect(abs(info.creationDate.timeIntervalSinceNow) < 60)
        var configuration = cache.configuration
        configuration.expireType = .modificationDate
        cache.configuration = configuration
        cache.removeExpiredData()
        #expect(!cache.containsData(forKey: "k"))
    }

    @Test func changeDateExpiryFollowsTheFilesStatusChangeNotItsDates() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let maxAge = Double(2 * TestTime.scale)
        let cache = cache(in: directory) {
            $0.maxAge = maxAge
            $0.expireType = .changeDate
        }
        try cache.setData(Data([1]), forKey: "untouched")
        try cache.setData(Data([1]), forKey: "changed")
        try await Task.sleep(for: .seconds(maxAge + 0.5))
        // Back-dating a file is itself a status change: its ctime is now, whatever dates
        // it claims, so by change date it is the fresh one.
        age(cache.fileURL(forKey: "changed").path, by: 3600)
        #expect(cache.data(forKey: "untouched") != nil, "a read is not a change")
        let result = cache.removeExpiredData()
        #expect(result.expiredCount == 1)
        #expect(!cache.containsData(forKey: "untouched"))
        #expect(cache.containsData(forKey: "changed"))
        let info = try #require(cache.entries().first)
        #expect(info.date(for: .changeDate) == info.changeDate)
        #expect(info.changeDate > info.modificationDate)
    }

    @Test func removesStaleTemporaryFilesAndOrphanSidecarsOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory) { $0.extendedDataStorage = .sidecar }
        let stale = directory.url.appendingPathComponent(".tmp-stale").path
        let fresh = directory.url.appendingPathComponent(".tmp-fresh").path
        // Sidecars are named after their entries, and only such names are the cache's.
        let orphan = directory.url.appendingPathComponent("." + DiskCache.fileName(forKey: "gone") + ".extended").path
        // A sidecar written a moment ago whose entry is not renamed into place yet: a store
        // in progress, not an orphan (the sweep used to take it, and the entry arrived
        // without its extended data).
        let storing = directory.url.appendingPathComponent("." + DiskCache.fileName(forKey: "arriving") + ".extended").path
        for path in [stale, fresh, orphan, storing] { try #require(FileManager.default.createFile(atPath: path, contents: Data([1]))) }
        age(stale, by: 2 * 3600)
        age(orphan, by: 2 * 3600)
        try cache.setData(Data([1]), forKey: "k", extendedData: Data([2]))
        cache.removeExpiredData()
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: fresh))
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(FileManager.default.fileExists(atPath: storing))
        #expect(cache.entry(forKey: "k")?.extendedData == Data([2]))
    }

    @Test func periodicCleanupRemovesExpiredEntriesInTheBackground() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = cache(in: directory) {
            $0.maxAge = 0
            $0.cleanupInterval = .milliseconds(50)
        }
        try cache.setData(Data([1]), forKey: "k")
        let deadline = ContinuousClock.now + Duration.seconds(5).scaled
        while cache.totalCount > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(cache.totalCount == 0)
        // Turning it off stops it: a new entry survives several intervals.
        var configuration = cache.configuration
        configuration.cleanupInterval = nil
        cache.configuration = configuration
        try await Task.sleep(for: .milliseconds(100))
        try cache.setData(Data([1]), forKey: "k2")
        try await Task.sleep(for: .milliseconds(250))
        #expect(cache.totalCount == 1)
    }
}
