import ArgumentParser
import Foundation

/// The image file every single-image command (`decode`, `encode`, `frames`, `info`) reads:
/// one positional argument, declared once so its help and its reading stay the same in all.
struct ImageFileArgument: ParsableArguments {
    @Argument(help: "The image file.")
    var file: String

    /// The file's bytes; a missing or unreadable file throws (reported by `reportingFailures`).
    func read() throws -> Data {
        try readInput(file)
    }
}
