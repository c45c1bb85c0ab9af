import Dispatch
import Foundation
import WebImage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Removes a command's temporary files and folders when it is interrupted (Ctrl-C,
/// SIGTERM), then lets the signal end the process, as its default action would have.
///
/// A `defer` does not run when a signal ends the process, so `demo` left its cache (half a
/// gigabyte after a long `--soak`, perhaps in a RAM-backed /tmp) behind, and `-o` its
/// hidden `.webimage-*.tmp` beside the output. Watches may overlap (`fetch` writes several
/// outputs at once): one process-wide registry holds them all. What is watched is removed
/// too when a failed write to standard output ends the process (``StandardStreams``, which
/// exits without unwinding either).
///
/// The signals are taken once, by the first watch, and kept for the rest of the process:
/// Linux's libdispatch installs its own handler for a signal only the first time a source
/// for it is made, so giving a signal back (`SIG_DFL`) and taking it again later left it
/// ignored, and every Ctrl-C after the first write was lost. With nothing watched, a
/// signal still ends the process at once.
final class InterruptCleanup: Sendable {
    private static let signals = [SIGINT, SIGTERM]
    /// The paths of every cleanup not yet cancelled, by cleanup.
    private static let watched = LockedValue<[ObjectIdentifier: URL]>([:])
    /// The signal sources, made by the first watch and never cancelled (see above).
    private static let sources = LockedValue<[any DispatchSourceSignal]>([])
    /// Held while a watched path is created (``creating(_:)``) and, from the cleanup on,
    /// by the signal's handler until the process ends: a file is either made before the
    /// cleanup, which then removes it, or never. Without it, a writer between its watch and
    /// its `open` could make the file just after the cleanup and leave it behind.
    private static let creation = LockedValue(())

    /// Takes the signals from their default action, once for the process.
    private static func takeSignals() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            sources = signals.map { number in
                // Ignored first, so the signal's default action cannot end the process
                // between here and the source taking it.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    // Not released: the process ends inside (see `creation`).
                    creation.withLock { (_: inout Void) -> Never in endProcess(by: number) }
                }
                source.resume()
                return source
            }
        }
    }

    /// Removes what is watched, then ends the process by signal `number`.
    private static func endProcess(by number: Int32) -> Never {
        removeWatchedPaths()
        // Ended by the signal itself, not by `exit`: a shell then reports
        // 128 + the signal, and a script's loop stops on Ctrl-C (bash goes on
        // when a child merely exits, taking the signal as handled).
        // libdispatch takes the signal blocked on every thread: unblocked on
        // this one, raised here, it is delivered at once.
        signal(number, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(number)
        // Not reached while the default action ends the process; if it did not,
        // the status a shell would report.
        exit(128 + number)
    }

    /// Runs `create`, which makes a watched path (an `open` with `O_CREAT`), so that an
    /// interruption's cleanup comes wholly before or wholly after it: after, the path is
    /// removed; before, `create` never runs, the process ending first.
    static func creating<T>(_ create: () throws -> T) rethrows -> T {
        try creation.withLock { _ in try create() }
    }

    private let path: URL

    /// Watches `path` (a file, or a folder with what it holds) until ``cancel()``: on one
    /// of the signals it is removed, with every other path watched, and the process exits.
    init(removing path: URL) {
        self.path = path
        Self.takeSignals()
        Self.watched.withLock { $0[ObjectIdentifier(self)] = path }
    }

    /// Stops watching this path (the signals stay taken: see the type's comment).
    func cancel() {
        Self.watched.withLock { $0[ObjectIdentifier(self)] = nil }
    }

    /// Removes every path watched, then runs `end`, which ends the process, holding the
    /// creation lock throughout (see `creation`): for a process about to exit with
    /// `exit(3)`, which runs no `defer` (a failed write to standard output).
    static func cleaningUpThenEnding(_ end: () -> Never) -> Never {
        creation.withLock { (_: inout Void) -> Never in
            removeWatchedPaths()
            end()
        }
    }

    /// Removes every path watched and not yet cancelled.
    static func removeWatchedPaths() {
        for path in watched.withLock({ Array($0.values) }) { try? FileManager.default.removeItem(at: path) }
    }
}
