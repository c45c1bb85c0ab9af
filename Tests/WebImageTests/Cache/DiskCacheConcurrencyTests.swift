import Foundation
import Testing
@testable import WebImage

/// Entries that prove their own integrity: 8 bytes of payload length, 8 bytes of FNV-1a
/// hash, then the payload. A torn or mixed write fails ``isIntact(_:)``.
enum SelfCheckingEntry {
    static func make(seed: UInt64, size: Int) -> Data {
        var state = seed | 1
        // Eight bytes per step: debug builds are slow per byte.
        var words = [UInt64](repeating: 0, count: (size + 7) / 8)
        for i in words.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            words[i] = state
        }
        let payload = words.withUnsafeBytes { Array($0.prefix(size)) }
        var data = Data()
        withUnsafeBytes(of: UInt64(size).littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: hash(payload).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: payload)
        return data
    }

    static func isIntact(_ data: Data) -> Bool {
        guard data.count >= 16 else { return false }
        let bytes = [UInt8](data)
        let size = bytes[0..<8].withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        let stored = bytes[8..<16].withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        return size == UInt64(bytes.count - 16) && stored == hash(bytes[16...])
    }

    /// The stored hash, which the writer also puts in the extended data.
    static func checksum(_ data: Data) -> Data { data.prefix(16).suffix(8) }

    private static func hash<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01B3
        }
        return hash
    }
}

@Suite("DiskCache under concurrency and crashes")
struct DiskCacheConcurrencyTests {
    static let writerDirectoryVariable = "WEBIMAGE_CACHE_CRASH_WRITER_DIRECTORY"
    static let keys = (0..<16).map { "https://example.com/crash/\($0).png" }

    @Test func manyTasksStoringReadingAndRemovingOverlappingKeysNeverSeeAPartialEntry() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration()
        configuration.maxSize = 400_000
        let cache = DiskCache(directory: directory.url, configuration: configuration)
        let keys = (0..<12).map { "key-\($0).jpg" }
        let bad = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    var bad = 0
                    for i in 0..<150 {
                        let key = keys[(i * 5 + worker) % keys.count]
                        switch (i + worker) % 5 {
                        case 0, 1:
                            let data = SelfCheckingEntry.make(seed: UInt64(i * 31 + worker), size: 1000 + (i % 7) * 9000)
                            do {
                                try cache.setData(data, forKey: key, extendedData: SelfCheckingEntry.checksum(data))
                            } catch { bad += 1 }
                        case 2, 3:
                            if let entry = cache.entry(forKey: key) {
                                if !SelfCheckingEntry.isIntact(entry.data) { bad += 1 }
                                // The entry and its attribute appear together, so they match.
                                if let extended = entry.extendedData, extended != SelfCheckingEntry.checksum(entry.data) { bad += 1 }
                            }
                        default:
                            if i % 15 == 4 { cache.removeExpiredData() } else { cache.removeData(forKey: key) }
                        }
                    }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(bad == 0)
        for name in try directory.visibleFiles() {
            let data = try Data(contentsOf: directory.url.appendingPathComponent(name))
            #expect(SelfCheckingEntry.isIntact(data), "\(name) is not a complete entry")
        }
    }

    /// Runs only inside the child process that
    /// ``processKilledWhileWritingLeavesOnlyCompleteEntries()`` starts: stores entries in a
    /// loop until it is killed. Skipped in a normal run.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[Self.writerDirectoryVariable] != nil))
    func writesEntriesUntilKilled() throws {
        let path = try #require(ProcessInfo.processInfo.environment[Self.writerDirectoryVariable])
        let cache = DiskCache(directory: URL(fileURLWithPath: path, isDirectory: true))
        // Made once, so the loop spends its time writing: 0.6 to 1.4 MB each, so that a kill is
        // likely to land between two write calls of one entry.
        let payloads = (0..<6).map { SelfCheckingEntry.make(seed: UInt64($0 + 1), size: 600_000 + $0 * 150_000) }
        var step = Int(getpid())
        while true {
            step += 1
            let data = payloads[step % payloads.count]
            try cache.setData(data, forKey: Self.keys[(step * 7) % Self.keys.count], extendedData: SelfCheckingEntry.checksum(data))
        }
    }

    /// The simplest robust crash: re-run this test binary as a child that executes only
    /// ``writesEntriesUntilKilled()``, let it write for a moment, `kill -9` it, five times,
    /// then check that every entry that reads back is complete and matches its attribute.
    @Test func processKilledWhileWritingLeavesOnlyCompleteEntries() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let cache = DiskCache(directory: directory.url)
        for round in 0..<5 {
            let child = Process()
            child.executableURL = executable
            child.arguments = ["--testing-library", "swift-testing", "--filter", "writesEntriesUntilKilled"]
            var environment = ProcessInfo.processInfo.environment
            environment[Self.writerDirectoryVariable] = directory.path
            child.environment = environment
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            // Wait for the first stores of this round, then a little more, then kill.
            let before = cache.totalCount
            let deadline = Date().addingTimeInterval(30)
            while cache.totalCount <= before, cache.totalCount < Self.keys.count, Date() < deadline, child.isRunning {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(150 + round * 70))
            #expect(child.isRunning, "the writer stopped on its own")
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal)
        }
        var found = 0
        for key in Self.keys {
            guard let entry = cache.entry(forKey: key) else { continue }
            found += 1
            #expect(SelfCheckingEntry.isIntact(entry.data), "\(key) reads back torn")
            #expect(entry.extendedData == SelfCheckingEntry.checksum(entry.data), "\(key) has another entry's attribute")
        }
        #expect(found > 0)
        #expect(try directory.visibleFiles().count == found)
        // What the kills left behind is only hidden temporary files, which a cleanup removes.
        var configuration = cache.configuration
        configuration.staleTemporaryFileAge = 0
        cache.configuration = configuration
        cache.removeExpiredData()
        let hidden = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
        #expect(hidden.isEmpty)
    }

    /// An image cache's configuration set while read-only folders are added: the set is
    /// one step, so no folder added meanwhile is lost (it read the disk configuration, then
    /// wrote it back in a second step, dropping what came in between).
    @Test func settingTheConfigurationKeepsFoldersAddedMeanwhile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = ImageCache(namespace: "config", directory: directory.url)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    cache.diskCache.addReadOnlyDirectory(directory.url.appendingPathComponent("ro-\(index)"))
                }
                group.addTask {
                    var config = cache.config
                    config.maxDiskSize = index
                    cache.config = config
                }
            }
        }
        #expect(cache.diskCache.configuration.readOnlyDirectories.count == 200)
    }

    /// Configurations set at once end as one of them, whole: each set used to apply its
    /// memory and disk limits outside the lock, so the last memory limits could be one
    /// set's and the disk limit another's.
    @Test func configurationsSetAtOnceEndAsOneOfThem() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for _ in 0..<200 {
            let cache = ImageCache(namespace: "config", directory: directory.url)
            await withTaskGroup(of: Void.self) { group in
                for index in 1...50 {
                    group.addTask {
                        var config = ImageCache.Configuration()
                        config.maxMemoryCost = index
                        config.maxMemoryCount = index
                        config.maxDiskSize = index
                        cache.config = config
                    }
                }
            }
            let last = cache.config.maxDiskSize
            #expect(cache.memoryCache.totalCostLimit == last)
            #expect(cache.memoryCache.countLimit == last)
            #expect(cache.diskCache.configuration.maxSize == last)
        }
    }
}
