import Dispatch
import Foundation
import WebImage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Removes a command's temporary folder when it is interrupted (Ctrl-C, SIGTERM), then ends
/// the process with the status a shell gives a command the signal ended (128 + the signal).
///
/// A `defer` does not run when a signal ends the process, so `demo` left its cache (half a
/// gigabyte after a long `--soak`, perhaps in a RAM-backed /tmp) behind. The signals are
/// taken from their default action only while the folder exists: ``cancel()`` gives them
/// back. The folder is removed too when a failed write to standard output ends the process
/// (``StandardStreams``, which exits without unwinding either).
final class InterruptCleanup {
    private let sources: [any DispatchSourceSignal]
    private let folder: URL
    private static let signals = [SIGINT, SIGTERM]
    /// The folders of every cleanup not yet cancelled, for ``removeWatchedFolders()``.
    private static let watched = LockedValue<[URL]>([])

    /// Watches for the signals until ``cancel()``; on one, removes `folder` and exits.
    init(removing folder: URL) {
        self.folder = folder
        Self.watched.withLock { $0.append(folder) }
        sources = Self.signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                try? FileManager.default.removeItem(at: folder)
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    /// Stops watching and gives the signals back their default action.
    func cancel() {
        for source in sources { source.cancel() }
        for number in Self.signals { signal(number, SIG_DFL) }
        Self.watched.withLock { folders in folders.removeAll { $0 == folder } }
    }

    /// Removes the folder of every cleanup not yet cancelled: for a process about to exit
    /// with `exit(3)`, which runs no `defer`.
    static func removeWatchedFolders() {
        for folder in watched.withLock({ $0 }) { try? FileManager.default.removeItem(at: folder) }
    }
}
