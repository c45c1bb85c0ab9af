import Foundation

/// What the suites that run the real `webimage` binary share: running it off the
/// cooperative pool, waiting for what it does meanwhile, a scratch folder, and the files
/// its disk cache wrote.
///
/// A suite adopts it and calls the methods as its own: `let result = try await run("fetch", url)`.
protocol CommandTesting {}

extension CommandTesting {
    /// Runs `webimage` on a Dispatch thread: the loopback servers the tests start answer
    /// from the Swift concurrency pool, which a blocking wait for the child must not occupy.
    func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) async throws -> WebImageCommand.Run {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try WebImageCommand.run(arguments, input: input, environment: environment) })
            }
        }
    }

    /// ``run(_:input:)`` with the arguments listed.
    func run(_ arguments: String...) async throws -> WebImageCommand.Run {
        try await run(arguments)
    }

    /// `count` routes serving TestImage.png that hold their bodies back (a byte every 20 ms,
    /// for at most `LoopbackServer.gatedHoldLimit`) until `gate` opens: a test opens it once
    /// three requests are open together, which a command loading one URL after another
    /// never reaches.
    func gatedPNGRoutes(count: Int, gate: ReplyGate) throws -> (paths: [String], routes: [String: LoopbackServer.Reply]) {
        let png = try Corpus.data("TestImage.png")
        let paths = (0..<count).map { "/\($0).png" }
        let routes = Dictionary(uniqueKeysWithValues: paths.map {
            ($0, LoopbackServer.Reply.gated(png, firstPart: 100, gate: gate, interval: .milliseconds(20), contentType: "image/png"))
        })
        return (paths, routes)
    }

    /// A new, empty folder under the temporary directory; the caller removes it.
    func scratchFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-command-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The files the command's cache wrote under `folder` (namespace "default"), by name.
    func cachedFiles(_ folder: URL) throws -> [Data] {
        let entries = folder.appendingPathComponent("default", isDirectory: true)
        return try FileManager.default.contentsOfDirectory(atPath: entries.path).sorted().map {
            try Data(contentsOf: entries.appendingPathComponent($0))
        }
    }
}
