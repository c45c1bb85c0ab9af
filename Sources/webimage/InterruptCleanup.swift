import Dispatch
import Foundation
import WebImage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Removes a command's temporary files and folders when it is interrupted (Ctrl-C,
/// SIGTERM), then ends the process with the status a shell gives a command the signal
/// ended (128 + the signal).
///
/// A `defer` does not run when a signal ends the process, so `demo` left its cache (half a
/// gigabyte after a long `--soak`, perhaps in a RAM-backed /tmp) behind, and `-o` its
/// hidden `.webimage-*.tmp` beside the output. The signals are taken from their default
/// action only while something is watched: the last ``cancel()`` gives them back. Watches
/// may overlap (`fetch` writes several outputs at once): one process-wide registry holds
/// them all. What is watched is removed too when a failed write to standard output ends the
/// process (``StandardStreams``, which exits without unwinding either).
final class InterruptCleanup: Sendable {
    private static let signals = [SIGINT, SIGTERM]
    /// The paths of every cleanup not yet cancelled, by cleanup, and the signal sources
    /// while there is any.
    private static let registry = LockedValue(Registry())
    private struct Registry {
        var paths: [ObjectIdentifier: URL] = [:]
        var sources: [any DispatchSourceSignal] = []
    }

    private let path: URL

    /// Watches for the signals until ``cancel()``; on one, removes `path` (a file, or a
    /// folder with what it holds) and every other path watched, and exits.
    init(removing path: URL) {
        self.path = path
        let id = ObjectIdentifier(self)
        Self.registry.withLock { registry in
            registry.paths[id] = path
            guard registry.sources.isEmpty else { return }
            registry.sources = Self.signals.map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    Self.removeWatchedPaths()
                    exit(128 + number)
                }
                source.resume()
                return source
            }
        }
    }

    /// Stops watching this path; the last watch gives the signals back their default action.
    func cancel() {
        let id = ObjectIdentifier(self)
        // Under the lock, so that a watch starting meanwhile finds either the signals still
        // taken, or given back and takes them again.
        Self.registry.withLock { registry in
            registry.paths[id] = nil
            guard registry.paths.isEmpty, !registry.sources.isEmpty else { return }
            for source in registry.sources { source.cancel() }
            registry.sources = []
            for number in Self.signals { signal(number, SIG_DFL) }
        }
    }

    /// Removes every path watched and not yet cancelled: for a process about to exit with
    /// `exit(3)`, which runs no `defer`.
    static func removeWatchedPaths() {
        for path in registry.withLock({ Array($0.paths.values) }) { try? FileManager.default.removeItem(at: path) }
    }
}
