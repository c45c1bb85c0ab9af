import Foundation
import WebImage

/// The URLs `fetch` loads, in order: its arguments, with the lines of standard input in
/// place of a `-`, read as they arrive (a pipe from a slow producer starts loading at its
/// first line) and never more than one line ahead of the loads that take them.
///
/// Used by one task at a time (the fetch loop), which calls ``next()`` in turn.
final class FetchInput {
    /// One thing to load, or a line of standard input that could not be taken.
    enum Item {
        /// URL text and its position in the whole input (0-based), which names `-o` files.
        case url(String, index: Int)
        /// A line of standard input over ``URLListReader/maxLineLength`` bytes, skipped.
        case tooLong(line: Int)
    }

    private var arguments: IndexingIterator<[String]>
    private var standardInput: URLListReader?
    private var index = 0

    init(arguments: [String]) {
        self.arguments = arguments.makeIterator()
    }

    /// The next item, or `nil` when the arguments and standard input are exhausted. Throws
    /// when standard input cannot be read.
    func next() async throws -> Item? {
        while true {
            if let reader = standardInput {
                if let entry = try await BlockingIO.run({ try reader.next() }) {
                    switch entry {
                    case .tooLong(let line):
                        return .tooLong(line: line)
                    case .text(let text, _):
                        defer { index += 1 }
                        return .url(text, index: index)
                    }
                }
                standardInput = nil
            }
            guard let argument = arguments.next() else { return nil }
            if argument == "-" {
                standardInput = try URLListReader(path: "-")
                continue
            }
            defer { index += 1 }
            return .url(argument, index: index)
        }
    }
}
