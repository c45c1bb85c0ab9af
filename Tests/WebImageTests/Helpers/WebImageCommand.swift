import Foundation
import Testing
import WebImage

/// The real `webimage` binary that `swift build` puts beside the test bundle, run as a
/// child process by the CLI suites. Each call starts its own process, so suites may run
/// it concurrently.
enum WebImageCommand {
    /// What one run of the command gave back.
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let binary: URL = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("webimage")

    /// One temporary cache home for every command a test run starts, removed when the test
    /// process exits (each pass used to leave one behind in /tmp).
    static let scratchCacheHome: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-tests-cache-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: WebImageCommand.scratchCacheHome) }
        return url
    }()

    static func run(_ arguments: String...) throws -> Run {
        try run(arguments)
    }

    /// The variables that would send the command's downloads through a proxy (curl's, which
    /// `fetch` and `prefetch` honour): never inherited from the test's environment, so a
    /// developer's proxy settings cannot route the loopback tests elsewhere.
    static let proxyVariables = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]

    /// `setpriv`, which ``run(_:input:environment:standardOutput:unprivileged:directory:)`` uses to
    /// run the command as `nobody` when the tests run as root.
    static let setpriv = "/usr/bin/setpriv"

    /// Whether the command can run as a user who is refused what file permissions refuse:
    /// the tests' own user unless it is root (whom they never stop), else `nobody` through
    /// ``setpriv``, when `nobody` may run the binary at all (a clone under a folder only
    /// root may enter, such as `/root`, keeps it out: tried once, with `--help`).
    static let canRunUnprivileged: Bool = {
        guard geteuid() == 0 else { return true }
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { return false }
        return (try? run(["--help"], unprivileged: true).status) == 0
    }()

    /// Said in the test run's output next to each test skipped for want of
    /// ``canRunUnprivileged``, so that a skip is not mistaken for a pass.
    static let unprivilegedSkipReason: Comment =
        "skipped: run as root, the tests cannot run webimage as nobody (a clone inside a folder only root may enter, such as /root, or no setpriv)"

    /// Runs `webimage` with `arguments` and waits for it to exit. `input`, when given, is
    /// written to its standard input (then closed); otherwise standard input is empty.
    /// `environment` is added to the inherited one (without its proxy variables).
    /// Standard output and standard error are read at the same time, so a command that
    /// writes much to one while the test waits on the other never blocks on a full pipe.
    /// `standardOutput`, when given, replaces the standard output pipe (the run's `stdout`
    /// is then empty). `unprivileged` runs the command as `nobody` when the tests run as
    /// root (see ``canRunUnprivileged``); the files it reads and writes must allow that user.
    /// `directory` is the working directory, for relative paths (the test's by default).
    static func run(_ arguments: [String], input: Data? = nil, environment extra: [String: String] = [:],
                    standardOutput: FileHandle? = nil, unprivileged: Bool = false, directory: URL? = nil) throws -> Run {
        let process = Process()
        if let directory { process.currentDirectoryURL = directory }
        if unprivileged, geteuid() == 0 {
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        // Commands that use the default disk cache write under XDG_CACHE_HOME: keep them
        // in a throwaway folder, never in the user's ~/.cache.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = scratchCacheHome.path
        for name in proxyVariables { environment[name] = nil }
        environment.merge(extra) { $1 }
        process.environment = environment
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        process.standardOutput = standardOutput ?? out
        process.standardError = err
        process.standardInput = stdin
        try process.run()
        // A command that exits without reading all its input closes the pipe: a write then
        // fails with EPIPE instead of killing the test process.
        signal(SIGPIPE, SIG_IGN)
        let inputHandle = stdin.fileHandleForWriting
        Thread {
            if let input { try? inputHandle.write(contentsOf: input) }
            try? inputHandle.close()
        }.start()
        let errorOutput = CollectedOutput()
        let errorHandle = err.fileHandleForReading
        let done = DispatchSemaphore(value: 0)
        Thread {
            errorOutput.set(errorHandle.readDataToEndOfFile())
            done.signal()
        }.start()
        let stdout = standardOutput == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        done.wait()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: errorOutput.data, as: UTF8.self))
    }
}

/// What a reader thread collected from a child's pipe, handed to the waiting thread.
private final class CollectedOutput: Sendable {
    private let value = LockedValue(Data())

    var data: Data { value.withLock { $0 } }

    func set(_ data: Data) { value.withLock { $0 = data } }
}
