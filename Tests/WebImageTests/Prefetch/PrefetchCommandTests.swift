import Foundation
import Testing
@testable import WebImage

/// `webimage prefetch`: plain per-URL lines and a summary when stdout is not a terminal,
/// status 1 when a URL was skipped, and one error line for a bad list. Runs the real
/// binary against a loopback server.
@Suite(.serialized) struct PrefetchCommandTests: CommandTesting {
    func listFile(_ lines: [String]) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-prefetch-\(UUID().uuidString).txt")
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        return file
    }

    @Test func prefetchPrintsALinePerURLAndASummary() async throws {
        let png = try Corpus.data("TestImage.png"), jpeg = try Corpus.data("TestImage.jpg")
        try await LoopbackServer.with(["/a.png": .ok(png), "/b.jpg": .ok(jpeg)]) { server in
            let file = try listFile(["# warm the gallery", server.url("/a.png").absoluteString, "",
                                     "  \(server.url("/b.jpg").absoluteString)  ", server.url("/missing.png").absoluteString])
            defer { try? FileManager.default.removeItem(at: file) }
            let run = try await run("prefetch", "--from", file.path, "--concurrency", "2", "--decode")
            #expect(run.status == 1)
            // Loaded URLs on standard output; skipped ones and the summary on standard error.
            let lines = run.stdout.split(separator: "\n").map(String.init)
            let errors = run.stderr.split(separator: "\n").map(String.init)
            #expect(lines.contains("loaded \(server.url("/a.png").absoluteString) 300x300 \(String(format: "%.1f", Double(png.count) / 1024)) KB from network"))
            #expect(lines.contains { $0.hasPrefix("loaded \(server.url("/b.jpg").absoluteString) ") })
            #expect(lines.count == 2)
            #expect(errors.contains("skipped \(server.url("/missing.png").absoluteString): invalid download status code 404"))
            #expect(errors.last?.hasPrefix("prefetched 3 URLs: finished 3, loaded 2, skipped 1, ") == true)
            #expect(!run.stdout.contains("\r") && !run.stderr.contains("\r"))  // no progress bar off a terminal
            #expect(server.requestCount("/a.png") == 1 && server.requestCount("/b.jpg") == 1)
        }
    }

    @Test func prefetchWithoutThumbnailStoresTheOriginalBytesUndecoded() async throws {
        // Not an image: only a load that never decodes can store it.
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-prefetch-raw-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/a.bin": .ok(bytes)]) { server in
            let url = server.url("/a.bin")
            let file = try listFile([url.absoluteString])
            defer { try? FileManager.default.removeItem(at: file) }
            let stored = try await run("prefetch", "--from", file.path, "--cache-dir", cache.path)
            #expect(stored.status == 0, "\(stored.stderr)")
            #expect(stored.stdout.split(separator: "\n").map(String.init) == ["loaded \(url.absoluteString) \(String(format: "%.1f", Double(bytes.count) / 1024)) KB from network"])
            #expect(ImageCache(namespace: "default", directory: cache).diskCache.data(forKey: url.absoluteString) == bytes)
            // --decode asks for the image, which these bytes are not.
            let decoding = try await run("prefetch", "--from", file.path, "--decode", "--cache-dir", cache.path + "-decode")
            #expect(decoding.status == 1)
            try? FileManager.default.removeItem(atPath: cache.path + "-decode")
        }
    }

    @Test func prefetchSucceedsWhenEveryURLLoads() async throws {
        let png = try Corpus.data("TestImage.png")
        try await LoopbackServer.with(["/a.png": .ok(png)]) { server in
            let file = try listFile([server.url("/a.png").absoluteString])
            defer { try? FileManager.default.removeItem(at: file) }
            let run = try await run("prefetch", "--from", file.path)
            #expect(run.status == 0)
            #expect(run.stderr.contains("finished 1, loaded 1, skipped 0"))
        }
    }

    @Test func aLineThatIsNotAURLIsReportedWithItsNumber() async throws {
        let file = try listFile(["# list", "https://example.test/a.png", "not a url"])
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await run("prefetch", "--from", file.path)
        #expect(run.status == 1)
        #expect(run.stderr == "webimage: error: line 3 is not an absolute URL: not a url\n")
        #expect(run.stdout.isEmpty)
    }

    @Test func thumbnailWithoutOriginalsStoresOneJPEGThumbnailPerURLAndASecondRunReadsIt() async throws {
        let jpeg = try Corpus.data("TestImage.jpg")  // 80x60
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/a.jpg": .ok(jpeg)]) { server in
            let file = try listFile([server.url("/a.jpg").absoluteString])
            defer { try? FileManager.default.removeItem(at: file) }
            let arguments = ["prefetch", "--from", file.path, "--cache-dir", cache.path, "--thumbnail", "40x40", "--no-originals"]
            let cold = try await run(arguments)
            #expect(cold.status == 0, "\(cold.stderr)")
            let loadedLine = { (run: WebImageCommand.Run) in run.stdout.split(separator: "\n").first { $0.hasPrefix("loaded ") }.map(String.init) }
            let coldLine = try #require(loadedLine(cold))
            #expect(coldLine.hasPrefix("loaded \(server.url("/a.jpg").absoluteString) 40x30 ") && coldLine.hasSuffix(" from network"))
            let files = try cachedFiles(cache)
            try #require(files.count == 1)
            let thumbnail = try CodersManager.shared.decode(files[0])
            #expect(thumbnail.format == .jpeg && thumbnail.size == ImageSize(width: 40, height: 30))

            let warm = try await run(arguments)
            #expect(warm.status == 0, "\(warm.stderr)")
            let warmLine = try #require(loadedLine(warm))
            #expect(warmLine.hasPrefix("loaded \(server.url("/a.jpg").absoluteString) 40x30 ") && warmLine.hasSuffix(" from disk"))
            #expect(server.requestCount("/a.jpg") == 1)
        }
    }

    @Test func thumbnailKeepsTheDownloadedOriginalWithOriginals() async throws {
        let jpeg = try Corpus.data("TestImage.jpg")
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/a.jpg": .ok(jpeg)]) { server in
            let file = try listFile([server.url("/a.jpg").absoluteString])
            defer { try? FileManager.default.removeItem(at: file) }
            let run = try await run("prefetch", "--from", file.path, "--cache-dir", cache.path, "--thumbnail", "40x40", "--originals")
            #expect(run.status == 0, "\(run.stderr)")
            let files = try cachedFiles(cache)
            #expect(files.count == 2)
            #expect(files.contains(jpeg))
            let sizes = try files.map { try CodersManager.shared.decode($0).size }
            #expect(Set(sizes) == [ImageSize(width: 80, height: 60), ImageSize(width: 40, height: 30)])
        }
    }

    @Test func qualitySetsTheThumbnailsJPEGQuality() async throws {
        let jpeg = try Corpus.data("TestImage.jpg")
        try await LoopbackServer.with(["/a.jpg": .ok(jpeg)]) { server in
            let file = try listFile([server.url("/a.jpg").absoluteString])
            defer { try? FileManager.default.removeItem(at: file) }
            var sizes: [Int] = []
            for quality in ["10", "95"] {
                let cache = try scratchFolder()
                defer { try? FileManager.default.removeItem(at: cache) }
                let run = try await run("prefetch", "--from", file.path, "--cache-dir", cache.path, "--thumbnail", "64x64", "--quality", quality, "--no-originals")
                #expect(run.status == 0, "\(run.stderr)")
                let files = try cachedFiles(cache)
                try #require(files.count == 1)
                #expect(ImageFormat(sniffing: files[0]) == .jpeg)
                sizes.append(files[0].count)
            }
            // Quality 10 throws away most of the detail quality 95 keeps.
            #expect(sizes[0] * 2 < sizes[1], "\(sizes)")
        }
    }

    @Test func qualityOutsideZeroToHundredIsRejected() async throws {
        let run = try await run("prefetch", "--from", "/dev/null", "--quality", "101")
        #expect(run.status != 0)
        #expect(run.stderr.contains("--quality must be between 0 and 100"))
    }

    /// Below one, or past what the process's descriptors can hold (2,000 loads at once
    /// would each want a connection to one host).
    @Test(arguments: ["0", "2000"])
    func concurrencyOutsideItsRangeIsRejected(_ concurrency: String) async throws {
        let run = try await run("prefetch", "--from", "/dev/null", "--concurrency", concurrency)
        #expect(run.status == 64)
        #expect(run.stderr.contains("--concurrency must be between 1 and 256"))
    }
}
