import Foundation
import Testing
@testable import WebImage

/// `webimage prefetch`'s batch defaults (several loads at once, thumbnails at quality 80,
/// no originals unless asked) and its list read from standard input, with its bounds. Runs
/// the real binary with pipes against a loopback origin.
@Suite struct PrefetchBatchCommandTests: CommandTesting {
    @Test func severalURLsLoadAtOnceByDefault() async throws {
        // The replies wait until three requests are open together (see gatedPNGRoutes).
        let gate = ReplyGate()
        let (paths, routes) = try gatedPNGRoutes(count: 6, gate: gate)
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(routes) { server in
            let list = paths.map { server.url($0).absoluteString }.joined(separator: "\n")
            async let running = run(["prefetch", "--from", "-", "--cache-dir", cache.path], input: Data(list.utf8))
            _ = await waitUntil { server.maxOpenRequests >= 3 }
            gate.open()
            let result = try await running
            #expect(server.maxOpenRequests >= 3)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").count == 6)
            #expect(result.stderr.contains("prefetched 6 URLs: finished 6, loaded 6, skipped 0, "))
        }
    }

    @Test func thumbnailDefaultsToQuality80AndNoOriginal() async throws {
        let jpeg = try Corpus.data("TestImage.jpg")  // 80x60
        try await LoopbackServer.with(["/a.jpg": .ok(jpeg)]) { server in
            var thumbnails: [String: Data] = [:]
            for (name, flags) in [("default", [String]()), ("80", ["--quality", "80"]), ("100", ["--quality", "100"])] {
                let cache = try scratchFolder()
                defer { try? FileManager.default.removeItem(at: cache) }
                let result = try await run(["prefetch", "--from", "-", "--cache-dir", cache.path, "--thumbnail", "40x40"] + flags,
                                           input: Data(server.url("/a.jpg").absoluteString.utf8))
                #expect(result.status == 0, "\(result.stderr)")
                let files = try cachedFiles(cache)
                try #require(files.count == 1, "only the thumbnail is stored")
                #expect(try CodersManager.shared.decode(files[0]).size == ImageSize(width: 40, height: 30))
                thumbnails[name] = files[0]
            }
            // The encoder is deterministic: the default's bytes are quality 80's exactly.
            #expect(thumbnails["default"] == thumbnails["80"])
            let best = try #require(thumbnails["100"]), eighty = try #require(thumbnails["80"])
            #expect(best.count > eighty.count, "\(best.count) vs \(eighty.count) bytes")
        }
    }

    /// A review's finding: with --thumbnail (or --decode) a cache that could not be written
    /// (here a file where its folder should be) gave "loaded" for every URL and status 0,
    /// the cache empty. The raw path already failed.
    @Test func aThumbnailTheCacheCannotHoldIsAFailure() async throws {
        let jpeg = try Corpus.data("TestImage.jpg")
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blocker = folder.appendingPathComponent("cache")
        try Data("a file, not a folder".utf8).write(to: blocker)
        try await LoopbackServer.with(["/a.jpg": .ok(jpeg)]) { server in
            let result = try await run(["prefetch", "--from", "-", "--cache-dir", blocker.path, "--thumbnail", "40x40"],
                                       input: Data(server.url("/a.jpg").absoluteString.utf8))
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("could not be stored in the cache"), "\(result.stderr)")
            #expect(result.stderr.contains("loaded 0, skipped 1"), "\(result.stderr)")
        }
    }

    @Test func aListLineOverTheLimitIsRefusedWithItsNumber() async throws {
        let input = "https://example.test/a.png\n# comment\n" + "https://example.test/" + String(repeating: "x", count: 70_000) + "\n"
        let result = try await run(["prefetch", "--from", "-"], input: Data(input.utf8))
        #expect(result.status == 1)
        #expect(result.stderr == "webimage: error: line 3 is longer than 65536 bytes\n")
        #expect(result.stdout.isEmpty)
    }

    /// The list is read whole before the loads start, so it is bounded in bytes as well as
    /// in URLs: lines of up to 64 KiB each would otherwise let a million of them take 64 GB.
    @Test func aListOverTheByteLimitIsRefusedWithTheLineThatCrossedIt() async throws {
        let line = Data(("https://example.test/" + String(repeating: "x", count: 65_000) + "\n").utf8)
        let lines = (256 << 20) / (line.count - 1) + 1
        var input = Data(capacity: line.count * lines)
        for _ in 0..<lines { input.append(line) }
        let result = try await run(["prefetch", "--from", "-"], input: input)
        #expect(result.status == 1)
        #expect(result.stderr == "webimage: error: the list has more than 268435456 bytes of URLs (line \(lines)); split it into several runs\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func aMissingListFileIsNamed() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-list-\(UUID().uuidString).txt").path
        let result = try await run(["prefetch", "--from", path])
        #expect(result.status == 1)
        #expect(result.stderr == "webimage: error: cannot access \(path): no such file\n")
    }

    @Test func helpStatesTheBatchDefaults() async throws {
        let result = try await run(["prefetch", "--help"])
        #expect(result.status == 0)
        let help = result.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        #expect(help.contains("4 per core"))
        #expect(help.contains("thumbnails stored at quality 80"))
        #expect(help.contains("--originals keeps the full downloaded image too"))
        #expect(help.contains("(default: 80.0)") || help.contains("(default: 80)"))
    }
}
