import Foundation
import WebImage

/// What `fetch` and `prefetch` print while they work: a line per loaded URL on standard
/// output, a line per failed URL on standard error, and, when standard error is a terminal,
/// a progress bar redrawn in place on it; at the end a summary line on standard error.
///
/// Standard output carries only the per-URL result lines, so `webimage fetch ... | sort`
/// or `> list.txt` gets data and nothing else, while failures, the bar and the summary
/// stay on the terminal (or go where `2>` sends them).
///
/// Thread-safe: loads report from any thread; output is written under the lock, so lines
/// never interleave and the bar is cleared before a line is printed over it.
final class ProgressDisplay: Sendable {
    /// The counts so far, for the summary.
    struct Counts {
        var loaded = 0
        var failed = 0
        var bytes = 0
        var done: Int { loaded + failed }
    }

    private struct State {
        var counts = Counts()
        var lastDraw: ContinuousClock.Instant?
    }

    /// How many URLs there are, when known (`fetch -` learns it only at the end).
    private let total: Int?
    private let showsBar: Bool
    /// Whether standard output is the terminal the bar is on, so that the bar must be
    /// cleared before a line is written there.
    private let sharesTerminal: Bool
    private let state = LockedValue(State())
    private static let barWidth = 30
    /// Redraws at most this often: a terminal that is sent a bar per image of a fast batch
    /// spends more time drawing than the batch takes.
    private static let redrawInterval = Duration.milliseconds(50)

    /// A display for `total` URLs (nil when unknown). The bar is drawn when `showsBar`,
    /// normally when standard error is a terminal.
    init(total: Int?, showsBar: Bool = isatty(STDERR_FILENO) == 1) {
        self.total = total
        self.showsBar = showsBar
        sharesTerminal = showsBar && isatty(STDOUT_FILENO) == 1
    }

    /// Counts a loaded URL of `bytes` bytes and prints `line` on standard output, if any.
    func loaded(bytes: Int, line: String?) {
        state.withLock { state in
            state.counts.loaded += 1
            state.counts.bytes += bytes
            if let line {
                if sharesTerminal { writeError("\r\u{1B}[K") }
                StandardStreams.output(line + "\n")
            }
            redraw(&state, force: line != nil && sharesTerminal)
        }
    }

    /// Counts a failed URL and prints `line` on standard error.
    func failed(line: String) {
        state.withLock { state in
            state.counts.failed += 1
            writeError((showsBar ? "\r\u{1B}[K" : "") + line + "\n")
            redraw(&state, force: true)
        }
    }

    /// The counts so far.
    var counts: Counts { state.withLock { $0.counts } }

    /// Clears the bar and prints the summary `line` on standard error.
    func finish(_ line: String) {
        state.withLock { _ in
            writeError((showsBar ? "\r\u{1B}[K" : "") + line + "\n")
        }
    }

    private func redraw(_ state: inout State, force: Bool) {
        guard showsBar else { return }
        let now = ContinuousClock.now
        if !force, let last = state.lastDraw, now - last < Self.redrawInterval, state.counts.done != total { return }
        state.lastDraw = now
        writeError("\r\u{1B}[K" + bar(state.counts))
    }

    private func bar(_ counts: Counts) -> String {
        let failed = counts.failed > 0 ? " (\(counts.failed) failed)" : ""
        guard let total else { return "\(counts.done) done\(failed), \(Self.bytes(counts.bytes))" }
        let filled = total == 0 ? Self.barWidth : Self.barWidth * min(counts.done, total) / total
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: Self.barWidth - filled)
            + "] \(counts.done)/\(total)\(failed), \(Self.bytes(counts.bytes))"
    }

    private func writeError(_ text: String) {
        StandardStreams.error(text)
    }

    /// A byte count for people: B, KB, MB (powers of 1024).
    static func bytes(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1024 * 1024 { return String(format: "%.1f KB", Double(count) / 1024) }
        return String(format: "%.1f MB", Double(count) / (1024 * 1024))
    }

    /// Seconds with two decimals.
    static func seconds(_ duration: Duration) -> String {
        String(format: "%.2f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
