import Foundation
import Synchronization

/// Watches work that might block forever opening or reading a FIFO with no writer. If the
/// work has not called ``markDone()`` in time, the watch opens the FIFO for writing and
/// closes it: the blocked reader then gets end-of-file, so the test reports the hang
/// instead of hanging itself. Thread-safe.
final class FIFOWatch: Sendable {
    private let done = Atomic(false)

    /// Called by the watched work when it ends.
    func markDone() {
        done.store(true, ordering: .releasing)
    }

    /// Runs blocking `work` on a thread of its own (not on the cooperative pool, which
    /// other tests may keep busy), marking the watch done when it returns.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) -> Task<T, Never> {
        Task {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let result = work()
                    self.markDone()
                    continuation.resume(returning: result)
                }
            }
        }
    }

    /// Waits up to `limit` for ``markDone()``; `false` when it did not come (the reader of
    /// `fifo` was then released).
    func waitForDone(within limit: Duration, releasing fifo: String) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if done.load(ordering: .acquiring) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        // A busy machine may wake this task late; work that ended meanwhile did not hang.
        if done.load(ordering: .acquiring) { return true }
        let writer = open(fifo, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
        return false
    }
}
