import Foundation

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

    /// Runs `webimage` with `arguments` and waits for it to exit.
    /// One temporary cache home for every command a test run starts.
    static let scratchCacheHome: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-tests-cache-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static func run(_ arguments: String...) throws -> Run {
        try run(arguments)
    }

    /// Runs `webimage` with `arguments` and waits for it to exit.
    static func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        // Commands that use the default disk cache write under XDG_CACHE_HOME: keep them
        // in a throwaway folder, never in the user's ~/.cache.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = scratchCacheHome.path
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }
}
