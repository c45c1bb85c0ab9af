/// The disk writes a manager left running after their loads completed, so that
/// ``ImageManager/waitForBackgroundStores()`` can wait for them.
///
/// A load without `.waitStoreCache` completes once its image is in memory and writes the
/// disk copy in a detached task (as SDWebImage stores to disk after calling back). Those
/// tasks used to be anonymous: a process that exited, or a test that removed its cache
/// folder, right after its last load could not tell when the writes were done, and a write
/// that came after the folder was removed made the folder again. Counting them costs one
/// lock per background write, never one per memory hit.
///
/// Thread-safe: the count and the waiters live under one lock; waiters are resumed
/// outside it.
final class BackgroundStores: Sendable {
    private struct State {
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    /// How many writes are running.
    var count: Int { state.withLock { $0.running } }

    /// Runs `work` in a detached task of utility priority, counted until it returns.
    func run(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { $0.running += 1 }
        Task.detached(priority: .utility) {
            await work()
            self.finished()
        }
    }

    /// Returns once no write is running: at once when none is, else when the last one
    /// running (including any started while waiting) has finished.
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.running > 0 else { return true }
                state.waiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func finished() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in ready { waiter.resume() }
    }
}
