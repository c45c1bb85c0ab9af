import Foundation
import WebImage

/// Reads a list of URLs, one per line, from a file or standard input, a buffer at a time:
/// `fetch -` loads each URL as it arrives, and no input (a pipe that never ends, a file
/// with no line breaks) makes it hold more than one line of ``maxLineLength`` bytes.
///
/// Lines are trimmed of surrounding white space (a `\r` before the `\n` included); blank
/// lines and lines starting with `#` are skipped. A line longer than ``maxLineLength`` is
/// skipped up to its end and reported as ``Entry/tooLong(line:)``, so the caller can name
/// it and go on (`fetch`) or refuse the list (`prefetch`).
///
/// Thread-safe; meant for one reader at a time, through ``next()``, which blocks on the
/// file: call it from ``BlockingIO``.
final class URLListReader: Sendable {
    /// What the list gives next.
    enum Entry: Equatable {
        /// The text of a non-blank, non-comment line and its number (1-based).
        case text(String, line: Int)
        /// A line longer than ``maxLineLength`` bytes, skipped.
        case tooLong(line: Int)
    }

    /// The longest line kept: 64 KiB. Web servers refuse request lines far shorter (nginx
    /// at 8 KiB by default), so no `http` URL that loads is longer; a larger `data:` URL can
    /// be given as an argument or saved as a file.
    static let maxLineLength = 64 * 1024

    private struct State {
        var buffer: [UInt8] = []
        /// Where the unread bytes of ``buffer`` start.
        var start = 0
        var endOfInput = false
        var lineNumber = 0
        /// Inside a line already found too long: bytes are dropped until its end.
        var skipping = false
        /// The `errno` of a failed read (a directory given as the list, an I/O error).
        var readError: Int32?
    }

    private let descriptor: Int32
    private let closesDescriptor: Bool
    private let name: String
    private let state = LockedValue(State())

    /// Reads standard input (`path == "-"`) or the file at `path`.
    init(path: String) throws {
        name = path == "-" ? "standard input" : path
        if path == "-" {
            descriptor = STDIN_FILENO
            closesDescriptor = false
        } else {
            let opened = open(path, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else {
                throw CocoaError(errno == ENOENT ? .fileReadNoSuchFile : .fileReadUnknown, userInfo: [NSFilePathErrorKey: path])
            }
            descriptor = opened
            closesDescriptor = true
        }
    }

    deinit {
        if closesDescriptor { close(descriptor) }
    }

    /// The next entry, or `nil` at the end of the input. Throws when the input cannot be
    /// read (a directory given as the list, an I/O error).
    func next() throws -> Entry? {
        try state.withLock { state throws(ListError) -> Entry? in
            while true {
                if let newline = state.buffer[state.start...].firstIndex(of: UInt8(ascii: "\n")) {
                    let line = state.buffer[state.start..<newline]
                    let entry = Self.entry(line, state: &state)
                    state.start = newline + 1
                    if let entry { return entry }
                    continue
                }
                // No line end in what is held: drop the lines already taken, so the buffer
                // only ever holds the current line (compacting once per read, not per line).
                state.buffer.removeSubrange(..<state.start)
                state.start = 0
                if state.buffer.count > Self.maxLineLength {
                    // Drop what is held; the line is reported when its end arrives.
                    state.buffer.removeAll(keepingCapacity: true)
                    state.skipping = true
                }
                if let code = state.readError {
                    throw ListError("cannot read \(name): \(String(cString: strerror(code)))")
                }
                if state.endOfInput {
                    guard !state.buffer.isEmpty || state.skipping else { return nil }
                    let line = state.buffer[...]
                    let entry = Self.entry(line, state: &state)
                    state.buffer.removeAll()
                    return entry
                }
                fill(&state)
            }
        }
    }

    /// The entry for one line's bytes (without its `\n`): too long, text, or `nil` for a
    /// blank or comment line. Counts the line.
    private static func entry(_ line: ArraySlice<UInt8>, state: inout State) -> Entry? {
        state.lineNumber += 1
        if state.skipping || line.count > maxLineLength {
            state.skipping = false
            return .tooLong(line: state.lineNumber)
        }
        return entryText(line).map { .text($0, line: state.lineNumber) }
    }

    /// Appends one read's worth of bytes, or marks the end of the input.
    private func fill(_ state: inout State) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0 {
                state.readError = errno
            } else if count == 0 {
                state.endOfInput = true
            } else {
                state.buffer.append(contentsOf: chunk[..<count])
            }
            return
        }
    }

    /// The trimmed text of a line, or `nil` for a blank or comment line.
    private static func entryText(_ bytes: ArraySlice<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty || text.hasPrefix("#") ? nil : text
    }

    /// Every URL of the list, for a command that needs them all before it starts
    /// (`prefetch`, whose progress bar shows the total). A line that is not an absolute URL,
    /// a line over ``maxLineLength`` bytes and a list of more than `maxCount` URLs or more
    /// than `maxBytes` bytes of URLs are errors naming the line.
    func readAll(maxCount: Int, maxBytes: Int) throws -> [URL] {
        var urls: [URL] = []
        var bytes = 0
        while let entry = try next() {
            switch entry {
            case .tooLong(let line):
                throw ListError("line \(line) is longer than \(Self.maxLineLength) bytes")
            case .text(let text, let line):
                bytes += text.utf8.count
                guard bytes <= maxBytes else {
                    throw ListError("the list has more than \(maxBytes) bytes of URLs (line \(line)); split it into several runs")
                }
                guard let url = URL(string: text), url.scheme != nil else {
                    throw ListError("line \(line) is not an absolute URL: \(text)")
                }
                guard urls.count < maxCount else {
                    throw ListError("the list has more than \(maxCount) URLs (line \(line)); split it into several runs")
                }
                urls.append(url)
            }
        }
        return urls
    }

    /// Why a list was refused: one line naming the line of the list.
    struct ListError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
