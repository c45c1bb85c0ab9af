import ArgumentParser
import Foundation

/// `--json` for the commands that describe something (`info`, `cache info`): one JSON
/// object with sorted keys instead of the text form, so scripts get a stable contract.
struct JSONOutputFlag: ParsableArguments {
    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    /// Prints `value` as JSON when `--json` was given, else runs `printText`.
    func emit<Value: Encodable>(_ value: Value, orText printText: () -> Void) throws {
        guard json else { return printText() }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        Swift.print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
