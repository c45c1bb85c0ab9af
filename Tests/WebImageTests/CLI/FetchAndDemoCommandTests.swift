import Foundation
import Testing
@testable import WebImage

/// `webimage fetch` against the loopback server and `webimage demo` on a small corpus:
/// the sources they report (network, disk, memory) and the files they write.
@Suite struct FetchAndDemoCommandTests: CommandTesting {
    /// The first word of each output line: the source.
    func sources(_ output: String) -> [String] {
        output.split(separator: "\n").map { String($0.split(separator: " ").first ?? "") }
    }

    @Test func fetchReportsNetworkThenMemoryThenDiskInASecondRun() async throws {
        let png = try pngData(width: 64, height: 32)
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            let url = server.url("/a.png").absoluteString
            let first = try await run("fetch", url, url, "--cache-dir", cache.path)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(sources(first.stdout) == ["network", "memory"])
            #expect(first.stdout.contains("64x32"))
            #expect(first.stdout.contains("png"))
            #expect(first.stdout.contains("\(png.count) B"))
            let second = try await run("fetch", url, "--cache-dir", cache.path)
            #expect(sources(second.stdout) == ["disk"])
            #expect(server.requestCount("/a.png") == 1)
        }
    }

    @Test func fetchWritesTheTransformedThumbnail() async throws {
        let png = try pngData(width: 200, height: 100)
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            let output = cache.appendingPathComponent("out.png")
            let run = try await run("fetch", server.url("/a.png").absoluteString, "--cache-dir", cache.path,
                                              "--thumbnail", "50x50", "--transform", "rotate=90", "-o", output.path)
            #expect(run.status == 0, "\(run.stderr)")
            let image = try CodersManager.shared.decode(Data(contentsOf: output))
            #expect(image.size == ImageSize(width: 25, height: 50))
        }
    }

    @Test func fetchFailsWithStatusOneAndNamesTheError() async throws {
        try await LoopbackServer.with([:]) { server in
            let cache = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: cache) }
            let run = try await run("fetch", server.url("/none.png").absoluteString, "--cache-dir", cache.path)
            #expect(run.status == 1)
            // A failed URL is reported on standard error, so `2>` keeps it and stdout has none.
            #expect(run.stderr.contains("404"))
            #expect(!run.stdout.contains("404"))
        }
    }

    @Test func fetchTakesATimeoutLongerThanTheDownloaderCanCount() async throws {
        // 1e300 s overflowed the conversion to milliseconds (as `inf` did); capped, it still
        // overflows 64-bit nanoseconds in the downloader. It means "no practical limit".
        let png = try pngData(width: 8, height: 8)
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            let run = try await run("fetch", server.url("/a.png").absoluteString, "--cache-dir", cache.path, "--timeout", "1e300")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(sources(run.stdout) == ["network"])
        }
    }

    @Test func fetchWithAThumbnailWhosePixelCountOverflowsGivesTheWholeImage() async throws {
        // 9,999,999,999² pixels do not fit in an Int; a box that large holds any image as it is.
        let png = try pngData(width: 12, height: 8)
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let run = try await run("fetch", "data:image/png;base64," + png.base64EncodedString(), "--cache-dir", cache.path,
                                "--thumbnail", "9999999999x9999999999")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("12x8"))
    }

    /// `-o out.txt` wrote PNG bytes under a name that says otherwise; a name whose
    /// extension is no image format is refused (`.tif` is TIFF, which is not encoded: that
    /// says so, where it wrote PNG).
    @Test func fetchRefusesAnOutputNameThatNamesNoFormat() async throws {
        let png = try pngData(width: 8, height: 8)
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = "data:image/png;base64," + png.base64EncodedString()
        let text = folder.appendingPathComponent("out.txt")
        let refused = try await run("fetch", source, "-o", text.path, "--cache-dir", folder.path)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("names no image format"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: text.path))
        let webp = folder.appendingPathComponent("out.webp")
        let written = try await run("fetch", source, "-o", webp.path, "--cache-dir", folder.path)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(ImageFormat(sniffing: try Data(contentsOf: webp)) == .webp)
    }

    /// A failed URL's line showed Foundation's raw error ("Error Domain=NSCocoaErrorDomain
    /// Code=516 ... UserInfo={...}") when `-o` named a file where the folder of several
    /// URLs should be; it is worded as every other error.
    @Test func fetchWordsAFileErrorForTheUser() async throws {
        let sources = try [8, 9].map { "data:image/png;base64," + (try pngData(width: $0, height: 8)).base64EncodedString() }
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("not-a-folder")
        try Data("mine".utf8).write(to: file)
        let run = try await run(["fetch"] + sources + ["-o", file.path, "--cache-dir", folder.path])
        #expect(run.status == 1)
        #expect(!run.stderr.contains("Error Domain"), "\(run.stderr)")
        #expect(run.stderr.contains("cannot access \(file.path): "), "\(run.stderr)")
        #expect(try Data(contentsOf: file) == Data("mine".utf8))
    }

    @Test func fetchRefusesATimeoutThatIsNotANumberOfSeconds() async throws {
        let run = try await run("fetch", "http://127.0.0.1:9/a.png", "--timeout", "nan")
        #expect(run.status == 64)
        #expect(run.stderr.contains("--timeout must be positive"))
    }

    /// A soak's memory limit is multiplied into bytes and its URLs made up front: numbers
    /// past their bounds are usage errors, not an overflow trap or gigabytes of URLs.
    @Test(arguments: [["--soak-memory-limit", "9000000000000"], ["--soak-urls", "4000000000"]])
    func demoSoakRefusesNumbersPastTheirBounds(_ option: [String]) async throws {
        let corpus = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: corpus) }
        try Corpus.data("TestImage.png").write(to: corpus.appendingPathComponent("TestImage.png"))
        let run = try await run(["demo", "--corpus", corpus.path, "--soak", "1"] + option)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("at most"))
    }

    /// The soak compares memory after its first pass with memory at the end: with a
    /// single pass (the default 2,000 URLs and `--soak 2000`) it compared a sample with
    /// itself and always passed.
    @Test func demoSoakNeedsTwoPassesToJudge() async throws {
        let corpus = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: corpus) }
        try Corpus.data("TestImage.png").write(to: corpus.appendingPathComponent("TestImage.png"))
        let run = try await run(["demo", "--corpus", corpus.path, "--soak", "30", "--soak-urls", "20"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("twice --soak-urls"))
    }

    /// A folder named with `--corpus` is the one served, or an error: a mistyped one used to
    /// fall back quietly to `$WEBIMAGE_CORPUS` or the clone's own corpus.
    @Test func demoWithAMissingCorpusFolderNamesIt() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-corpus-\(UUID().uuidString)").path
        let run = try await run(["demo", "--corpus", missing], environment: ["WEBIMAGE_CORPUS": Corpus.directory.path])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--corpus \(missing): no such folder"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// Ctrl-C during a long soak removes its temporary cache (a `defer` does not run when a
    /// signal ends the process: it was left behind, half a gigabyte after `make soak`), and
    /// the signal still ends the process.
    @Test func anInterruptedSoakRemovesItsCache() async throws {
        let corpus = try scratchFolder(), temporary = try scratchFolder()
        defer {
            try? FileManager.default.removeItem(at: corpus)
            try? FileManager.default.removeItem(at: temporary)
        }
        try Corpus.data("TestImage.png").write(to: corpus.appendingPathComponent("TestImage.png"))
        let process = Process()
        process.executableURL = WebImageCommand.binary
        process.arguments = ["demo", "--corpus", corpus.path, "--soak", "10000000", "--soak-urls", "20"]
        var environment = ProcessInfo.processInfo.environment
        for name in WebImageCommand.proxyVariables { environment[name] = nil }
        environment["TMPDIR"] = temporary.path
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let soaking = { (try? FileManager.default.contentsOfDirectory(atPath: temporary.path))?.contains { $0.hasPrefix("webimage-soak-") } == true }
        // Its cache exists once the loads have begun writing to it.
        try #require(await waitUntil { soaking() })
        try await Task.sleep(for: .milliseconds(200))
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT, "status \(process.terminationStatus)")
        #expect(!soaking(), "the soak's cache was left behind")
    }

    /// A review's finding: `demo` printed with `print`, so with standard output on a full
    /// device it exited 0 having shown nothing. It fails now as every command does, and the
    /// cache folder it made is removed on the way out (`exit` runs no `defer`).
    @Test func demoFailsOnAFailedWriteToStandardOutputAndLeavesNoCache() throws {
        try withOneImageCorpus { corpus, temporary in
            // Writing to /dev/full fails with ENOSPC; it is only written to, never replaced.
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            defer { try? full.close() }
            let result = try WebImageCommand.run(["demo", "--corpus", corpus.path], environment: ["TMPDIR": temporary.path], standardOutput: full)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("cannot write to standard output"), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [], "the demo's cache folder is gone")
        }
    }

    /// A reader that goes away after the first lines: the table's write meets a closed pipe
    /// once the loads have filled the cache, and the process ends as SIGPIPE would end it,
    /// its cache folder removed first.
    @Test func demoWhoseReaderWentAwayLeavesNoCache() throws {
        try withOneImageCorpus { corpus, temporary in
            let process = Process()
            process.executableURL = WebImageCommand.binary
            process.arguments = ["demo", "--corpus", corpus.path]
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = temporary.path
            environment["XDG_CACHE_HOME"] = WebImageCommand.scratchCacheHome.path
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Read up to the "cache" line, then close the only read end.
            var seen = Data()
            while !String(decoding: seen, as: UTF8.self).contains("(removed afterwards)") {
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                seen += chunk
            }
            // On a loaded machine the one-image demo can write everything into the pipe's
            // buffer and end before this thread gets to close it (seen once: exit 0 after
            // 3.5 s); then no write met a closed pipe, and only the folder can be checked.
            let endedBeforeTheClose = !process.isRunning
            try output.fileHandleForReading.close()
            process.waitUntilExit()
            if !endedBeforeTheClose {
                #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGPIPE,
                        "\(process.terminationReason) \(process.terminationStatus)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [], "the demo's cache folder is gone")
        }
    }

    /// Runs `body` with a corpus folder holding one PNG and an empty folder for `TMPDIR`,
    /// both removed after.
    func withOneImageCorpus(_ body: (_ corpus: URL, _ temporary: URL) throws -> Void) throws {
        let corpus = try scratchFolder()
        let temporary = try scratchFolder()
        defer {
            try? FileManager.default.removeItem(at: corpus)
            try? FileManager.default.removeItem(at: temporary)
        }
        try Corpus.data("TestImage.png").write(to: corpus.appendingPathComponent("TestImage.png"))
        try body(corpus, temporary)
    }

    @Test func demoLoadsEveryImageFromNetworkThenDiskThenMemory() async throws {
        let corpus = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: corpus) }
        for name in ["TestImage.png", "TestImage.jpg", "TestLoopCount.gif"] {
            try Corpus.data(name).write(to: corpus.appendingPathComponent(name))
        }
        let run = try await run("demo", "--corpus", corpus.path)
        #expect(run.status == 0, "\(run.stderr)")
        let rows = run.stdout.split(separator: "\n").filter { $0.hasPrefix("Test") }
        #expect(rows.count == 3)
        for row in rows {
            let words = row.split(separator: " ")
            #expect(words.filter { ["network", "disk", "memory"].contains($0) } == ["network", "disk", "memory"], "\(row)")
        }
        #expect(run.stdout.contains("3 network"))
        #expect(run.stdout.contains("3 disk"))
        #expect(run.stdout.contains("3 memory"))
        let cacheLine = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("cache") })
        let cachePath = String(cacheLine.split(separator: " ")[1])
        #expect(!FileManager.default.fileExists(atPath: cachePath))
    }

    /// A FIFO in the corpus is not a file to serve (it used to abort the whole demo); a file
    /// that is not an image is served, fails its loads, and the status says so.
    @Test func demoSkipsAFIFOAndFailsForAFileThatIsNotAnImage() async throws {
        let corpus = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: corpus) }
        try Corpus.data("TestImage.png").write(to: corpus.appendingPathComponent("TestImage.png"))
        #expect(mkfifo(corpus.appendingPathComponent("pipe.png").path, 0o600) == 0)
        let served = try await run("demo", "--corpus", corpus.path)
        #expect(served.status == 0, "\(served.stderr)")
        #expect(served.stdout.contains("serving 1 files"))

        try Data("not an image".utf8).write(to: corpus.appendingPathComponent("notes.png"))
        let failing = try await run("demo", "--corpus", corpus.path)
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("1 of 2 images failed to load"))
        #expect(failing.stdout.contains("TestImage.png"))
    }
}
