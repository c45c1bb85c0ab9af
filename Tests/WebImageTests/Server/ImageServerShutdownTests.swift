import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
@testable import WebImage

/// `webimage serve`, the real binary: it prints its port when it listens, refuses to
/// start without a key, and on SIGTERM finishes the requests in flight before it exits 0.
@Suite struct ImageServerShutdownTests {
    /// A running `webimage serve` child process.
    final class ServeProcess: Sendable {
        let process: Process
        let port: Int
        let metricsPort: Int?
        /// Set by the termination handler.
        private let exitStatus: ExitStatus

        final class ExitStatus: Sendable {
            let value = LockedValue<Int32?>(nil)
        }

        private init(process: Process, port: Int, metricsPort: Int?, exitStatus: ExitStatus) {
            self.process = process
            self.port = port
            self.metricsPort = metricsPort
            self.exitStatus = exitStatus
        }

        /// Starts `webimage serve ARGUMENTS` (with `extra` as its only `WEBIMAGE_*` variables)
        /// and waits for its "listening on" line.
        static func start(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> ServeProcess {
            let process = ImageServerShutdownTests.serveProcess(arguments, environment: extra)
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let exitStatus = ExitStatus()
            process.terminationHandler = { finished in
                let status = finished.terminationStatus
                exitStatus.value.withLock { $0 = status }
            }
            try process.run()
            let reader = output.fileHandleForReading
            // Blocking reads on a Dispatch thread, not on the cooperative pool.
            let line: String? = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var text = ""
                    while !text.contains("\n") {
                        let chunk = reader.availableData
                        if chunk.isEmpty { break }
                        text += String(decoding: chunk, as: UTF8.self)
                    }
                    continuation.resume(returning: text.split(separator: "\n").first.map(String.init))
                }
            }
            // "webimage serve: listening on 127.0.0.1:PORT[, metrics on port PORT]"
            let prefix = "webimage serve: listening on 127.0.0.1:"
            guard let line, line.hasPrefix(prefix), let port = Int(line.dropFirst(prefix.count).prefix { $0.isNumber }) else {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                throw StartError.noListeningLine(line ?? "")
            }
            let metricsPort = line.range(of: "metrics on port ").flatMap { Int(line[$0.upperBound...]) }
            return ServeProcess(process: process, port: port, metricsPort: metricsPort, exitStatus: exitStatus)
        }

        enum StartError: Error { case noListeningLine(String) }

        /// The exit status, or `nil` when the process has not exited within `limit`.
        func waitForExit(within limit: Duration) async throws -> Int32? {
            _ = await waitUntil(limit) { exitStatus.value.withLock { $0 } != nil }
            return exitStatus.value.withLock { $0 }
        }

        /// Sends `signal` to the process.
        func send(_ signal: Int32) -> Bool {
            kill(process.processIdentifier, signal) == 0
        }

        /// Kills the process if it still runs (a failed test's clean-up).
        func killIfRunning() {
            if exitStatus.value.withLock({ $0 }) == nil { kill(process.processIdentifier, SIGKILL) }
        }
    }

    @Test func sigtermLetsRequestsInFlightFinishThenExitsZero() async throws {
        // The origin holds both replies until the test lets them go (a byte every 20 ms,
        // so the downloads never look idle), so both requests are surely in flight when
        // the signal arrives, however slow the machine.
        let photo = try Corpus.data("TestImage.jpg")
        let gate = ReplyGate()
        let held = LoopbackServer.Reply.gated(photo, firstPart: 8, gate: gate, interval: Duration.milliseconds(20).scaled, contentType: "image/jpeg")
        try await LoopbackServer.with(["/a.jpg": held, "/b.jpg": held]) { origin in
            defer { gate.open() }
            // The server's time-outs are its defaults, scaled as the test's own limits are.
            let serve = try await ServeProcess.start(
                ["--insecure", "--allow-loopback-source-addresses", "--bind", "127.0.0.1:0", "--workers", "2"],
                environment: ["WEBIMAGE_DOWNLOAD_TIMEOUT": "\(5 * TestTime.scale)", "WEBIMAGE_TIMEOUT": "\(10 * TestTime.scale)"]
            )
            defer { serve.killIfRunning() }
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            // Probes go through a client of their own, so they never ride on a connection
            // the two requests opened.
            let probe = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            do {
                let base = "http://127.0.0.1:\(serve.port)"
                async let first = RunningImageServer.send(client: client, url: base + ImageURL.plain(origin.url("/a.jpg"), ["w:40"]), method: .GET, headers: [], timeout: .seconds(30))
                async let second = RunningImageServer.send(client: client, url: base + ImageURL.plain(origin.url("/b.jpg"), ["w:20"]), method: .GET, headers: [], timeout: .seconds(30))
                // Both requests have reached the origin, which holds them.
                #expect(await waitUntil(.seconds(10)) { origin.requests.count == 2 })
                #expect(serve.send(SIGTERM))
                // The server stops taking connections while the two are still open.
                let stopped = await waitUntil(.seconds(10)) {
                    (try? await RunningImageServer.send(client: probe, url: base + "/health", method: .GET, headers: [], timeout: .seconds(1))) == nil
                }
                #expect(stopped)
                #expect(try await serve.waitForExit(within: .milliseconds(200)) == nil)
                gate.open()
                let (a, b) = try await (first, second)
                #expect(a.status == 200)
                #expect(b.status == 200)
                #expect(try CodersManager.shared.decode(a.body).size == ImageSize(width: 40, height: 30))
                #expect(try CodersManager.shared.decode(b.body).size == ImageSize(width: 20, height: 15))
                #expect(try await serve.waitForExit(within: .seconds(10)) == 0)
                try await client.shutdown()
                try await probe.shutdown()
            } catch {
                try? await client.shutdown()
                try? await probe.shutdown()
                throw error
            }
        }
    }

    @Test func servesHealthAndMetricsOnThePrintedPortsAndExitsZeroOnSIGTERM() async throws {
        let serve = try await ServeProcess.start(["--insecure", "--bind", "127.0.0.1:0", "--prometheus-bind", "127.0.0.1:0"])
        defer { serve.killIfRunning() }
        let metricsPort = try #require(serve.metricsPort)
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let health = try? await RunningImageServer.send(client: client, url: "http://127.0.0.1:\(serve.port)/health", method: .GET, headers: [], timeout: .seconds(5))
        let metrics = try? await RunningImageServer.send(client: client, url: "http://127.0.0.1:\(metricsPort)/metrics", method: .GET, headers: [], timeout: .seconds(5))
        try await client.shutdown()
        #expect(health?.status == 200)
        #expect(metrics?.text.contains("webimage_queue_length") == true)
        #expect(serve.send(SIGTERM))
        #expect(try await serve.waitForExit(within: .seconds(10)) == 0)
    }

    /// A `webimage serve ARGUMENTS` process, not started, with `extra` as its only
    /// `WEBIMAGE_*` variables: no setting of the machine running the tests leaks in.
    static func serveProcess(_ arguments: [String], environment extra: [String: String]) -> Process {
        let process = Process()
        process.executableURL = WebImageCommand.binary
        process.arguments = ["serve"] + arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WEBIMAGE_") }
        environment["XDG_CACHE_HOME"] = WebImageCommand.scratchCacheHome.path
        environment.merge(extra) { $1 }
        process.environment = environment
        return process
    }

    /// Runs `webimage serve ARGUMENTS` to its exit with `extra` as its only `WEBIMAGE_*`
    /// variables; the reads block on a Dispatch thread, not on the cooperative pool.
    static func runToExit(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = serveProcess(arguments, environment: extra)
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let stdout = output.fileHandleForReading.readDataToEndOfFile()
                let stderr = errors.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self)))
            }
        }
    }

    @Test func refusesToStartWithoutAKeyUnlessInsecure() async throws {
        let run = try await Self.runToExit(["--bind", "127.0.0.1:0"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("no signing key"))
        #expect(run.stdout.isEmpty)
    }

    @Test(arguments: [("WEBIMAGE_WORKERS", "lots"), ("WEBIMAGE_RESULT_CACHE", "redis"), ("WEBIMAGE_BIND", "nowhere")])
    func malformedEnvironmentIsRefusedByName(_ name: String, value: String) async throws {
        let run = try await Self.runToExit(["--insecure"], environment: [name: value])
        #expect(run.status == 64)
        #expect(run.stderr.contains(name), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// A `WEBIMAGE_*` variable that no setting has is named in a warning at start: one of
    /// imgproxy's carried over by renaming (`PATH_PREFIX`) did nothing, silently. (The
    /// malformed `--bind` then stops the process before it listens.)
    @Test func aVariableNoSettingHasIsWarnedOf() async throws {
        let run = try await Self.runToExit(["--insecure", "--bind", "nowhere"], environment: ["WEBIMAGE_PATH_PREFIX": "/img", "WEBIMAGE_WORKERS": "2"])
        #expect(run.stderr.contains("WARNING: ignoring WEBIMAGE_PATH_PREFIX: no such setting"), "\(run.stderr)")
        #expect(!run.stderr.contains("WEBIMAGE_WORKERS"), "\(run.stderr)")
        #expect(run.status == 64)
    }

    /// The server fetches sources directly from the addresses it checked (a proxy would
    /// resolve the name again); a proxy variable in its environment is said to be unused,
    /// as imgproxy would have used it.
    @Test func aProxyVariableIsSaidToBeUnused() async throws {
        let run = try await Self.runToExit(["--insecure", "--bind", "nowhere"], environment: ["https_proxy": "http://127.0.0.1:3128"])
        #expect(run.stderr.contains("WARNING: https_proxy not used"), "\(run.stderr)")
        #expect(run.status == 64)
    }

    /// A flag is held to the range of its environment variable: `--workers 100000` made as
    /// many threads (NIO trapped), `--workers 0` quietly became 1.
    @Test(arguments: [["--workers", "100000"], ["--workers", "0"], ["--queue-size", "-1"], ["--max-redirects", "1000"]])
    func outOfRangeFlagsAreRefusedByName(_ flag: [String]) async throws {
        let run = try await Self.runToExit(["--insecure", "--bind", "127.0.0.1:0"] + flag)
        #expect(run.status == 64)
        #expect(run.stderr.contains(flag[0]), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// A malformed `--bind` was reported as "WEBIMAGE_BIND must be host:port", naming a
    /// variable the user never set; the error names the flag now.
    @Test(arguments: ["--bind", "--prometheus-bind"])
    func aMalformedBindFlagIsRefusedByItsName(_ flag: String) async throws {
        let listening = flag == "--bind" ? [] : ["--bind", "127.0.0.1:0"]
        let run = try await Self.runToExit(["--insecure", flag, "nowhere"] + listening)
        #expect(run.status == 64)
        #expect(run.stderr.contains("\(flag) must be host:port"), "\(run.stderr)")
        #expect(!run.stderr.contains("WEBIMAGE_"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// A port already taken was reported in NIO's words ("bind(descriptor:ptr:bytes:):
    /// Address already in use) (errno: 98)"); the error says what could not be done, where.
    @Test func aTakenPortIsRefusedInPlainWords() async throws {
        try await ConnectionCountingListener.with(host: "127.0.0.1") { taken in
            let run = try await Self.runToExit(["--insecure", "--bind", "127.0.0.1:\(taken.port)"])
            #expect(run.status == 1)
            #expect(run.stderr.contains("webimage serve: error: cannot listen on 127.0.0.1:\(taken.port): Address already in use"), "\(run.stderr)")
            #expect(!run.stderr.contains("descriptor"), "\(run.stderr)")
        }
    }

    @Test func flagsOverrideTheEnvironment() async throws {
        // WEBIMAGE_BIND is malformed, but --bind replaces it before it is read.
        let serve = try await ServeProcess.start(["--insecure", "--bind", "127.0.0.1:0"], environment: ["WEBIMAGE_BIND": "nowhere"])
        defer { serve.killIfRunning() }
        #expect(serve.port > 0)
        #expect(serve.send(SIGTERM))
        #expect(try await serve.waitForExit(within: .seconds(10)) == 0)
    }
}
