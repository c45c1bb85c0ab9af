import Foundation
import WebImage

/// DiskCache against raw POSIX calls on the same bytes in the same directory.
///
/// The reference store is what an atomic writer must do at least (create a temporary
/// file, write, close, rename); the reference hit is open, fstat, read, close. Each side
/// runs on a fresh directory, and the file system's page cache is warm for both hits (the
/// entries were just written), which is the common case for a hot cache. Hits and misses
/// are the best of three alternating rounds; the store (1 GB per side) runs once, so it
/// is the noisiest line.
struct DiskBenchmark {
    let entries: Int
    let entrySize: Int
    let base: URL

    init(arguments: Arguments) {
        entries = arguments.entries
        entrySize = arguments.entrySize
        base = URL(fileURLWithPath: arguments.directory ?? NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("cache-bench-\(getpid())", isDirectory: true)
    }

    func run() throws {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        var generator = SystemRandomNumberGenerator()
        let payloads = (0..<16).map { _ in Data((0..<entrySize).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        let keys = (0..<entries).map { "https://images.example.com/photos/\($0)/large.jpg" }

        let oursDirectory = base.appendingPathComponent("ours", isDirectory: true)
        let rawDirectory = base.appendingPathComponent("raw", isDirectory: true).path
        try FileManager.default.createDirectory(atPath: rawDirectory, withIntermediateDirectories: true)
        let cache = DiskCache(directory: oursDirectory)

        let oursStore = try measure {
            for (i, key) in keys.enumerated() { try cache.setData(payloads[i % payloads.count], forKey: key) }
        }
        // The raw side names files by index: it pays no hashing, which is part of our cost.
        let rawStore = try measure {
            for i in 0..<entries { try rawWrite(payloads[i % payloads.count], to: rawDirectory + "/\(i)", directory: rawDirectory) }
        }
        report("disk store (µs/entry)", ours: oursStore * 1e6 / Double(entries), reference: rawStore * 1e6 / Double(entries),
               unit: "µs", referenceName: "raw")

        let (oursHit, rawHit) = try bestOfAlternating(
            ours: {
                var bytes = 0
                let time = try measure { for key in keys { bytes += cache.data(forKey: key)?.count ?? 0 } }
                precondition(bytes == entries * entrySize, "every read must hit")
                return time
            },
            reference: {
                var bytes = 0
                let time = try measure { for i in 0..<entries { bytes += rawRead(rawDirectory + "/\(i)")?.count ?? 0 } }
                precondition(bytes == entries * entrySize, "every read must hit")
                return time
            }
        )
        report("disk hit (µs/entry)", ours: oursHit * 1e6 / Double(entries), reference: rawHit * 1e6 / Double(entries),
               unit: "µs", referenceName: "raw")

        let (oursMiss, rawMiss) = try bestOfAlternating(
            ours: {
                try measure {
                    for i in 0..<entries where cache.data(forKey: "missing-\(i)") != nil { preconditionFailure("unexpected hit") }
                }
            },
            reference: {
                try measure {
                    for i in 0..<entries where rawRead(rawDirectory + "/missing-\(i)") != nil { preconditionFailure("unexpected hit") }
                }
            }
        )
        report("disk miss (µs/entry)", ours: oursMiss * 1e6 / Double(entries), reference: rawMiss * 1e6 / Double(entries),
               unit: "µs", referenceName: "raw")

        // Trim: a size limit of one byte removes every file; the reference lists the
        // directory, stats each file and unlinks it, which is the least a trim must do.
        var configuration = cache.configuration
        configuration.maxSize = 1
        configuration.maxAge = -1
        cache.configuration = configuration
        var removed = 0
        let oursTrim = try measure { removed = cache.removeExpiredData().trimmedCount }
        precondition(removed == entries, "the trim must remove every entry")
        let rawTrim = try measure {
            let names = try FileManager.default.contentsOfDirectory(atPath: rawDirectory)
            for name in names {
                var info = stat()
                if lstat(rawDirectory + "/" + name, &info) == 0 { unlink(rawDirectory + "/" + name) }
            }
        }
        report("trim of \(entries) files (ms)", ours: oursTrim * 1e3, reference: rawTrim * 1e3, unit: "ms", referenceName: "raw")
    }

    private func measure(_ body: () throws -> Void) throws -> Double {
        let start = now()
        try body()
        return now() - start
    }

    private func rawWrite(_ data: Data, to path: String, directory: String) throws {
        let temporary = directory + "/.tmp-\(UInt64.random(in: .min ... .max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == data.count, rename(temporary, path) == 0 else { throw POSIXError(.EIO) }
    }

    private func rawRead(_ path: String) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, let buffer = malloc(Int(info.st_size)) else { return nil }
        let count = read(fd, buffer, Int(info.st_size))
        guard count >= 0 else {
            free(buffer)
            return nil
        }
        return Data(bytesNoCopy: buffer, count: count, deallocator: .free)
    }
}
