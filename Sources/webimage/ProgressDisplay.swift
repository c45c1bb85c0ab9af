import Foundation
import WebImage

/// What `webimage prefetch` prints: on a terminal a progress bar redrawn in place (with
/// skipped URLs printed above it), otherwise one plain line per URL, and a summary at the
/// end. Thread-safe: loads report from any thread; output is written under the lock, so
/// lines never interleave.
final class PrefetchDisplay: Sendable {
    private struct State {
        var finished = 0
        var skipped = 0
        var bytes = 0
    }

    private let total: Int
    private let isTerminal: Bool
    private let state = LockedValue(State())
    private static let barWidth = 30

    init(total: Int, isTerminal: Bool) {
        self.total = total
        self.isTerminal = isTerminal
    }

    /// Records one URL's outcome and, off a terminal (or for a failure), prints its line.
    func record(_ url: URL?, _ outcome: Result<ImageLoadResult, WebImageError>) {
        let name = url?.absoluteString ?? "(no URL)"
        state.withLock { state in
            var line: String?
            switch outcome {
            case .success(let result):
                let size = result.data?.count ?? 0
                state.bytes += size
                if !isTerminal {
                    line = "loaded \(name) \(result.image.size.width)x\(result.image.size.height) \(Self.bytes(size)) from \(Self.source(result.cacheType))"
                }
            case .failure(let error):
                state.skipped += 1
                line = "skipped \(name): \(error.description)"
            }
            guard let line else { return }
            write(isTerminal ? "\r\u{1B}[K\(line)\n" + bar(state) : "\(line)\n")
        }
    }

    /// Redraws the bar after a URL is done (a no-op off a terminal).
    func progress(_ finished: Int) {
        guard isTerminal else { return }
        state.withLock { state in
            state.finished = max(state.finished, finished)
            write("\r" + bar(state))
        }
    }

    /// Prints the summary line.
    func finish(_ result: PrefetchResult, elapsed: Duration) {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        state.withLock { state in
            let summary = "prefetched \(result.total) URLs: finished \(result.finished), loaded \(result.loaded), "
                + "skipped \(result.skipped), \(Self.bytes(state.bytes)) in \(String(format: "%.2f", seconds)) s\n"
            write((isTerminal ? "\r\u{1B}[K" : "") + summary)
        }
    }

    private func bar(_ state: State) -> String {
        let filled = total == 0 ? Self.barWidth : Self.barWidth * state.finished / total
        let skipped = state.skipped > 0 ? " (\(state.skipped) skipped)" : ""
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: Self.barWidth - filled)
            + "] \(state.finished)/\(total)\(skipped)"
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private static func source(_ cacheType: ImageCacheType) -> String {
        switch cacheType {
        case .none: "network"
        case .disk: "disk"
        case .memory, .all: "memory"
        }
    }

    private static func bytes(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1024 * 1024 { return String(format: "%.1f KB", Double(count) / 1024) }
        return String(format: "%.1f MB", Double(count) / (1024 * 1024))
    }
}
