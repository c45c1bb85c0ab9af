import Foundation
import Synchronization

/// Runs work that might block forever opening or reading a FIFO with no writer, with a
/// watchdog: if the work has not returned within the limit, the watchdog opens the FIFO for
/// writing and closes it, so the blocked reader gets end-of-file and the test reports the
/// hang instead of hanging itself.
///
/// The work and the watchdog run on threads of their own and the limit is measured there,
/// so the verdict does not depend on when a cooperative-pool thread is free (in `make test`
/// the codec suites can keep both busy for many seconds).
enum FIFOWatch {
    /// Runs `work`; returns its result and whether the watchdog had to release `fifo`.
    static func run<T: Sendable>(
        releasing fifo: String,
        within limit: Duration = .seconds(5),
        _ work: @escaping @Sendable () -> T
    ) async -> (value: T, hung: Bool) {
        let done = Atomic(false)
        let hung = Atomic(false)
        let value: T = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let deadline = ContinuousClock.now + limit
                while !done.load(ordering: .acquiring), ContinuousClock.now < deadline { usleep(10_000) }
                guard !done.load(ordering: .acquiring) else { return }
                hung.store(true, ordering: .releasing)
                let writer = open(fifo, O_WRONLY | O_NONBLOCK)
                if writer >= 0 { close(writer) }
            }
            Thread.detachNewThread {
                let result = work()
                done.store(true, ordering: .releasing)
                continuation.resume(returning: result)
            }
        }
        return (value, hung.load(ordering: .acquiring))
    }
}
