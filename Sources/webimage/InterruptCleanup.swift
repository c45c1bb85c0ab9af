import Dispatch
import Foundation

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
/// back.
final class InterruptCleanup {
    private let sources: [any DispatchSourceSignal]
    private static let signals = [SIGINT, SIGTERM]

    /// Watches for the signals until ``cancel()``; on one, removes `folder` and exits.
    init(removing folder: URL) {
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
    }
}
