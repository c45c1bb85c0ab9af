/// Keeps a callback load's progress handler from running after, or while, its completion
/// runs: ``ImageLoader``'s contract, carried through the manager.
///
/// The callback forms complete a cancelled load at once, on the cancelling thread, while
/// a progress report for the same load may be running on a loader's thread (the
/// downloader holds only its own completion back, not the manager's). Both the report and
/// the completion go through the gate: a report that starts after the gate closed is
/// dropped, and a completion that arrives during a report runs when that report ends, on
/// its thread. A progress handler that cancels its own load is a report in flight too, so
/// its completion runs as it returns, never inside it.
///
/// Thread-safe; the lock is never held while a handler runs.
final class ProgressGate: Sendable {
    private struct State {
        var reportsInFlight = 0
        var isClosed = false
        var held: [@Sendable () -> Void] = []
    }

    private let state = LockedValue(State())

    /// `progress` behind the gate, or `nil` for none.
    func guarding(_ progress: LoadProgressHandler?) -> LoadProgressHandler? {
        guard let progress else { return nil }
        return { [self] report in
            let open = state.withLock { state -> Bool in
                guard !state.isClosed else { return false }
                state.reportsInFlight += 1
                return true
            }
            guard open else { return }
            progress(report)
            let held = state.withLock { state -> [@Sendable () -> Void] in
                state.reportsInFlight -= 1
                guard state.reportsInFlight == 0 else { return [] }
                defer { state.held.removeAll() }
                return state.held
            }
            for completion in held { completion() }
        }
    }

    /// Closes the gate (no report starts after) and runs `completion` once no report is
    /// running: now, or when the last report in flight ends.
    func close(then completion: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            state.isClosed = true
            guard state.reportsInFlight > 0 else { return true }
            state.held.append(completion)
            return false
        }
        if now { completion() }
    }
}
