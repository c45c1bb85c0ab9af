import ArgumentParser
import Foundation
import Synchronization
import WebImage

/// `webimage prefetch --from FILE [--concurrency N]`: warms the image cache with a list of
/// URLs through ``Prefetcher``, showing a live progress bar on a terminal and one line per
/// URL otherwise, then a summary. Exits with status 1 when any URL was skipped.
struct PrefetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Load a list of image URLs into the cache ahead of need."
    )

    @Option(help: "A file of URLs, one per line; blank lines and lines starting with # are ignored ('-' reads standard input).")
    var from: String

    @Option(help: "How many images load at once.")
    var concurrency = 3

    /// The manager the command loads through.
    static func makeManager() -> any ImageManaging {
        ImageManager.shared
    }

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
    }

    func run() throws {
        try reportingFailures {
            let text = String(decoding: from == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try readInput(from), as: UTF8.self)
            let urls = try Self.parseURLList(text)
            let display = PrefetchDisplay(total: urls.count, isTerminal: isatty(STDOUT_FILENO) == 1)
            let manager = ObservedImageManager(Self.makeManager()) { url, outcome in display.record(url, outcome) }
            let prefetcher = Prefetcher(manager: manager, maxConcurrentPrefetchCount: concurrency)
            let started = ContinuousClock.now
            let done = DispatchSemaphore(value: 0)
            let result = Mutex(PrefetchResult(finished: 0, skipped: 0, total: urls.count))
            prefetcher.prefetch(urls: urls, progress: { finished, _ in display.progress(finished) }) { finished, skipped in
                result.withLock { $0 = PrefetchResult(finished: finished, skipped: skipped, total: urls.count) }
                done.signal()
            }
            done.wait()
            let summary = result.withLock { $0 }
            display.finish(summary, elapsed: ContinuousClock.now - started)
            if summary.skipped > 0 { throw ExitCode.failure }
        }
    }

    /// The URLs of a list: one per line, surrounding spaces trimmed, blank lines and `#`
    /// comments skipped. A line that is not an absolute URL is an error naming the line.
    static func parseURLList(_ text: String) throws -> [URL] {
        var urls: [URL] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let url = URL(string: line), url.scheme != nil else {
                throw ValidationError("line \(number + 1) is not an absolute URL: \(line)")
            }
            urls.append(url)
        }
        return urls
    }
}
