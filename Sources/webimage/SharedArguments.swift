import ArgumentParser
import Foundation

// The option groups several commands share, declared once so that their help text and
// their handling stay the same in every command that takes them.

/// The image file every single-image command (`decode`, `encode`, `frames`, `info`) reads:
/// one positional argument.
struct ImageFileArgument: ParsableArguments {
    @Argument(help: "The image file; `-` reads it from standard input.")
    var file: String

    /// The file's bytes; a missing or unreadable file throws (reported by `reportingFailures`).
    func read() throws -> Data {
        try readInput(file)
    }
}

/// `--json` for the commands that describe something (`info`, `cache info`): one JSON
/// object with sorted keys instead of the text form, so scripts get a stable contract.
struct JSONOutputFlag: ParsableArguments {
    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    /// Writes `value` as JSON when `--json` was given, else the lines `text` returns, to
    /// standard output through ``StandardStreams``: `print` left a failed write unnoticed, so
    /// `info x.png > /dev/full` exited 0.
    func emit<Value: Encodable>(_ value: Value, orText text: () -> [String]) throws {
        guard json else { return StandardStreams.output(text().map { $0 + "\n" }.joined()) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        StandardStreams.output(String(decoding: try encoder.encode(value), as: UTF8.self) + "\n")
    }
}
