import Foundation
import Testing
@testable import WebImage

/// `webimage fetch` as a batch tool: several URLs at once, results on standard output and
/// failures on standard error, URLs from standard input, and the exit status. Runs the real
/// binary with pipes (so no progress bar) against a loopback origin.
@Suite struct FetchBatchCommandTests: CommandTesting {
    func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }

    @Test func severalURLsLoadAtOnceByDefault() async throws {
        // The replies wait until three requests are open together (see gatedPNGRoutes).
        let gate = ReplyGate()
        let (paths, routes) = try gatedPNGRoutes(count: 6, gate: gate)
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(routes) { server in
            let urls = paths.map { server.url($0).absoluteString }
            async let running = run(["fetch"] + urls + ["--cache-dir", cache.path])
            let overlapped = await waitUntil { server.maxOpenRequests >= 3 }
            gate.open()
            let result = try await running
            #expect(overlapped, "at most \(server.maxOpenRequests) requests were open at once")
            #expect(result.status == 0, "\(result.stderr)")
            let printed = lines(result.stdout)
            #expect(printed.count == 6)
            #expect(Set(printed.map { String($0.split(separator: " ").last ?? "") }) == Set(urls))
            #expect(printed.allSatisfy { $0.hasPrefix("network ") && $0.contains("300x300") })
            #expect(lines(result.stderr).last?.hasPrefix("fetched 6 URLs: loaded 6, failed 0, ") == true)
        }
    }

    @Test func concurrencyOneLoadsOneURLAtATime() async throws {
        let png = try pngData(width: 64, height: 32)
        let paths = (0..<4).map { "/\($0).png" }
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(Dictionary(uniqueKeysWithValues: paths.map { ($0, pngReply(png)) })) { server in
            let result = try await run(["fetch"] + paths.map { server.url($0).absoluteString } + ["--cache-dir", cache.path, "--concurrency", "1"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(lines(result.stdout).count == 4)
            #expect(server.maxOpenRequests == 1)
        }
    }

    @Test func linesComeInTheOrderTheLoadsFinish() async throws {
        // The first URL's body is held (a byte every 60 ms, at most 40 s) until the second
        // URL's image has been written, so the second finishes first and is printed first.
        let png = try Corpus.data("TestImage.png")
        let gate = ReplyGate()
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let routes: [String: LoopbackServer.Reply] = [
            "/slow.png": .gated(png, firstPart: 100, gate: gate, interval: .milliseconds(60), contentType: "image/png"),
            "/fast.png": pngReply(png),
        ]
        try await LoopbackServer.with(routes) { server in
            let output = cache.appendingPathComponent("out", isDirectory: true)
            async let running = run(["fetch", server.url("/slow.png").absoluteString, server.url("/fast.png").absoluteString,
                                     "--cache-dir", cache.path, "-o", output.path])
            let fastWritten = await waitUntil { FileManager.default.fileExists(atPath: output.appendingPathComponent("1-fast.png").path) }
            gate.open()
            let result = try await running
            #expect(fastWritten)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(lines(result.stdout).map { String($0.split(separator: " ").last ?? "") }
                == [server.url("/fast.png").absoluteString, server.url("/slow.png").absoluteString])
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("0-slow.png").path))
        }
    }

    /// A review's finding on a first attempt at cleaning up `-o`'s hidden temporary file:
    /// each write took the signals and gave them back, and Linux's libdispatch installs its
    /// handler only for the first source of a signal, so after one file was written every
    /// later Ctrl-C was ignored. Here a Ctrl-C after the first of two outputs is written,
    /// while the second URL stalls, must still end the process, by the signal, and leave no
    /// temporary file.
    @Test func ctrlCAfterAWrittenOutputStillEndsTheFetch() async throws {
        let png = try pngData(width: 16, height: 16)
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/fast.png": pngReply(png), "/stalled.png": .stallBeforeHeaders]) { server in
            let output = cache.appendingPathComponent("out", isDirectory: true)
            let process = Process()
            process.executableURL = WebImageCommand.binary
            process.arguments = ["fetch", server.url("/fast.png").absoluteString, server.url("/stalled.png").absoluteString,
                                 "--cache-dir", cache.appendingPathComponent("cache").path, "-o", output.path]
            var environment = ProcessInfo.processInfo.environment
            for name in WebImageCommand.proxyVariables { environment[name] = nil }
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            let written = await waitUntil { FileManager.default.fileExists(atPath: output.appendingPathComponent("0-fast.png").path) }
            try #require(written, "the first output was never written")
            try #require(await waitUntil { server.requestCount("/stalled.png") == 1 })
            process.interrupt()
            let ended = await waitUntil(.seconds(10)) { !process.isRunning }
            #expect(ended, "the Ctrl-C was ignored")
            guard ended else { return }
            // Ended by the signal, as its default action ends a process: a shell's loop
            // stops on it.
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT,
                    "status \(process.terminationStatus), reason \(process.terminationReason.rawValue)")
            let left = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasPrefix(".webimage-") }
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test func failuresGoToStandardErrorAndTheStatusIsOne() async throws {
        let png = try pngData(width: 16, height: 16)
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/a.png": pngReply(png), "/b.png": pngReply(png)]) { server in
            let missing = server.url("/missing.png").absoluteString
            let result = try await run(["fetch", server.url("/a.png").absoluteString, missing, server.url("/b.png").absoluteString,
                                        "not a url", "--cache-dir", cache.path])
            #expect(result.status == 1)
            let printed = lines(result.stdout)
            #expect(printed.count == 2)
            #expect(printed.allSatisfy { $0.hasPrefix("network ") })
            #expect(!result.stdout.contains("missing") && !result.stdout.contains("failed"))
            let errors = lines(result.stderr)
            #expect(errors.contains { $0.hasPrefix("failed   \(missing): ") && $0.contains("404") })
            #expect(errors.contains { $0.hasPrefix("failed   not a url: ") })
            #expect(errors.last?.hasPrefix("fetched 4 URLs: loaded 2, failed 2, ") == true)
            #expect(!result.stderr.contains("\r"))  // no progress bar off a terminal
        }
    }

    @Test func aDashReadsURLsFromStandardInput() async throws {
        let png = try pngData(width: 20, height: 10)
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/a.png": pngReply(png), "/b.png": pngReply(png), "/c.png": pngReply(png)]) { server in
            let input = "# a list\n\n\(server.url("/b.png").absoluteString)\n  \(server.url("/c.png").absoluteString)  \r\n"
            let output = cache.appendingPathComponent("out", isDirectory: true)
            let result = try await run(["fetch", server.url("/a.png").absoluteString, "-", "--cache-dir", cache.path, "-o", output.path],
                                       input: Data(input.utf8))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Set(lines(result.stdout).map { String($0.split(separator: " ").last ?? "") })
                == Set(["/a.png", "/b.png", "/c.png"].map { server.url($0).absoluteString }))
            let written = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
            #expect(written == ["0-a.png", "1-b.png", "2-c.png"])
            #expect(lines(result.stderr).last?.hasPrefix("fetched 3 URLs: loaded 3, failed 0, ") == true)
        }
    }

    /// Output names are file names whatever the URL: `http://h/` (last component "/") is
    /// `image`, not a folder `0-` holding `.png`; a 250-byte last component is cut under
    /// Linux's 255-byte name limit instead of failing the URL.
    @Test func outputNamesAreFileNamesWhateverTheURL() async throws {
        let png = try pngData(width: 20, height: 10)
        // 125 × "ж" (two bytes each in UTF-8), percent-encoded as the request carries it.
        let long = "/" + String(repeating: "%D0%B6", count: 125) + ".png"
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/": pngReply(png), long: pngReply(png)]) { server in
            let output = cache.appendingPathComponent("out", isDirectory: true)
            let urls = [server.url("/").absoluteString, server.url(long).absoluteString]
            let result = try await run(["fetch"] + urls + ["--cache-dir", cache.path, "-o", output.path, "--concurrency", "1"])
            #expect(result.status == 0, "\(result.stderr)")
            let written = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
            #expect(written.count == 2)
            #expect(written.contains("0-image.png"))
            let cut = "1-" + String(repeating: "ж", count: 100) + ".png"
            #expect(written.contains(cut), "\(written)")
        }
    }

    @Test func aStandardInputLineOverTheLimitIsReportedAndTheRestStillLoads() async throws {
        let png = try pngData(width: 20, height: 10)
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            let long = "http://127.0.0.1/" + String(repeating: "x", count: 70_000)
            let input = "\(long)\n\(server.url("/a.png").absoluteString)\n"
            let result = try await run(["fetch", "-", "--cache-dir", cache.path], input: Data(input.utf8))
            #expect(result.status == 1)
            #expect(lines(result.stdout).count == 1)
            #expect(result.stdout.hasSuffix("\(server.url("/a.png").absoluteString)\n"))
            #expect(result.stderr.contains("failed   standard input line 1: longer than 65536 bytes\n"))
            #expect(!result.stderr.contains("xxxx"))
        }
    }

    @Test func rawWritesTheOriginalBytesWithoutDecoding() async throws {
        // Not an image: only a load that never decodes can write it.
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(["/a.bin": .ok(bytes), "/b.bin": .ok(Data(bytes.reversed()))]) { server in
            let single = cache.appendingPathComponent("out.bin")
            let one = try await run(["fetch", server.url("/a.bin").absoluteString, "--raw", "-o", single.path, "--cache-dir", cache.path])
            #expect(one.status == 0, "\(one.stderr)")
            #expect(try Data(contentsOf: single) == bytes)
            let fields = one.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
            #expect(fields.count == 8, "\(one.stdout)")
            #expect(Array(fields.prefix(5)) == ["network", "-", "raw", "\(bytes.count)", "B"])
            #expect(fields.last == server.url("/a.bin").absoluteString)
            // Several URLs: a directory of INDEX-NAME with the URL's extension; the first from disk now.
            let folder = cache.appendingPathComponent("out")
            let two = try await run(["fetch", server.url("/a.bin").absoluteString, server.url("/b.bin").absoluteString,
                                     "--raw", "-o", folder.path, "--cache-dir", cache.path, "--concurrency", "1"])
            #expect(two.status == 0, "\(two.stderr)")
            #expect(try Data(contentsOf: folder.appendingPathComponent("0-a.bin")) == bytes)
            #expect(try Data(contentsOf: folder.appendingPathComponent("1-b.bin")) == Data(bytes.reversed()))
            #expect(lines(two.stdout).first?.hasPrefix("disk ") == true)
            #expect(server.requestCount("/a.bin") == 1)
        }
    }

    /// A raw copy that cannot be renamed into place says why (the errno was dropped).
    @Test func aRawCopyThatCannotBeWrittenSaysWhy() async throws {
        let png = try pngData(width: 8, height: 8)
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A file where the output's folder should be (an existing folder named as the
        // output is now written into, as `-o DIR/` is).
        let blocker = folder.appendingPathComponent("blocker")
        try Data("not a folder".utf8).write(to: blocker)
        let inTheWay = blocker.appendingPathComponent("out.png")
        let source = "data:image/png;base64," + png.base64EncodedString()
        let result = try await run(["fetch", source, "--raw", "-o", inTheWay.path, "--cache-dir", folder.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot write \(inTheWay.path): "), "\(result.stderr)")
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.hasSuffix(".tmp") })
    }

    /// A review's finding: `-o` was a folder only for several URLs, so one URL into an
    /// existing folder (or `-o shots/`) downloaded, then failed with "is a directory", and
    /// a script's list of one URL wrote a file where a longer list made a folder.
    @Test func oneURLIntoAFolderIsWrittenInsideIt() async throws {
        let png = try pngData(width: 8, height: 8)
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let existing = folder.appendingPathComponent("shots")
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: true)
        let source = "data:image/png;base64," + png.base64EncodedString()
        let result = try await run(["fetch", source, "-o", existing.path, "--cache-dir", folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: existing.path).count == 1)
        let slashed = folder.appendingPathComponent("new").path + "/"
        let second = try await run(["fetch", source, "-o", slashed, "--cache-dir", folder.path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: slashed).count == 1)
    }

    /// A review's finding: `-o` files were encoded at 100 whatever `--quality` said.
    @Test func theOutputIsEncodedAtTheQualityAsked() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = Corpus.fixtures.appendingPathComponent("color/display-p3.jpg").absoluteString
        var sizes: [Int] = []
        for quality in ["20", "95"] {
            let output = folder.appendingPathComponent("q\(quality).jpg")
            let result = try await run(["fetch", source, "-o", output.path, "--quality", quality, "--cache-dir", folder.path])
            #expect(result.status == 0, "\(result.stderr)")
            sizes.append(try Data(contentsOf: output).count)
        }
        #expect(sizes[0] < sizes[1], "\(sizes)")
        // Not to a lossless format: to the GIF encoder a quality is a palette size (a review
        // of the change found GIFs cut to 205 colours and dithered at the default 80).
        var gifs: [Data] = []
        for quality in ["80", "100"] {
            let output = folder.appendingPathComponent("q\(quality).gif")
            let result = try await run(["fetch", source, "-o", output.path, "--quality", quality, "--cache-dir", folder.path])
            #expect(result.status == 0, "\(result.stderr)")
            gifs.append(try Data(contentsOf: output))
        }
        #expect(gifs[0] == gifs[1])
    }

    @Test func rawWithAThumbnailIsAUsageError() async throws {
        let result = try await run(["fetch", "https://example.test/a.jpg", "--raw", "--thumbnail", "64x64"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--raw"))
    }

    /// `webimage fetch … | head -1`: the reader goes away. Once a socket has opened, NIO
    /// ignores SIGPIPE for the process, so the next result line met EPIPE, and Foundation's
    /// `FileHandle.write` trapped on it (a crash and a backtrace). The command now ends as
    /// SIGPIPE ends curl: by the signal, printing nothing.
    @Test func aReaderThatGoesAwayEndsTheCommandAsSIGPIPEWould() async throws {
        let png = try pngData(width: 16, height: 16)
        let paths = (0..<4).map { "/\($0).png" }
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try await LoopbackServer.with(Dictionary(uniqueKeysWithValues: paths.map { ($0, pngReply(png)) })) { server in
            let process = Process()
            process.executableURL = WebImageCommand.binary
            process.arguments = ["fetch"] + paths.map { server.url($0).absoluteString } + ["--cache-dir", cache.path]
            var environment = ProcessInfo.processInfo.environment
            for name in WebImageCommand.proxyVariables { environment[name] = nil }
            process.environment = environment
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // The reader leaves before the first line.
            try out.fileHandleForReading.close()
            let stderr = try await Self.readToEnd(err.fileHandleForReading)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "status \(process.terminationStatus): \(stderr)")
            #expect(process.terminationStatus == SIGPIPE)
            #expect(!stderr.contains("Fatal error"), "\(stderr)")
        }
    }

    static func readToEnd(_ handle: FileHandle) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(returning: String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)) }.start()
        }
    }

    @Test func dashGivenTwiceIsAUsageError() async throws {
        let result = try await run(["fetch", "-", "-"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("'-' (standard input) may be given once"))
    }

    @Test func helpStatesTheBatchDefaults() async throws {
        let result = try await run(["fetch", "--help"])
        #expect(result.status == 0)
        let help = result.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        #expect(help.contains("4 per core"))
        #expect(help.contains("in the order they finish"))
        #expect(help.contains("--originals"))
        #expect(help.contains("Exit status: 0 when every URL loaded, 1 when any failed, 64 for a usage error."))
    }
}
