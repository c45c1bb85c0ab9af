/// Keeps completions from running while a progress report is in flight, so a caller's
/// progress handler is never called after, or during, its completion: ``ImageLoader``'s
/// contract, kept by the downloader for each of a download's callers and by the manager
/// for each callback load.
///
/// A completion can arrive from any thread while a report runs on another: a caller
/// cancels while the event loop is calling its progress handler. Each report is entered
/// and left around the handlers it calls; a completion handed to ``whenIdle(_:)`` during a
/// report runs when the last report in flight ends, on its thread. A progress handler that
/// cancels its own load is a report in flight too, so its completion runs as it returns,
/// never inside it. Once ``close(then:)`` has run, no report starts (the manager's load is
/// over); the downloader, whose other callers still get reports, never closes it.
///
/// Thread-safe; the lock is never held while a handler or a completion runs.
final class ProgressGate: Sendable {
    private struct State {
        var reportsInFlight = 0
        var isClosed = false
        var held: [@Sendable () -> Void] = []
    }

    private let state = LockedValue(State())

    /// A report starts; `false` (start none) once the gate is closed.
    func enter() -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.reportsInFlight += 1
            return true
        }
    }

    /// A report that ``enter()`` let start has ended: completions held meanwhile run now.
    func leave() {
        let held = state.withLock { state -> [@Sendable () -> Void] in
            state.reportsInFlight -= 1
            guard state.reportsInFlight == 0 else { return [] }
            defer { state.held.removeAll() }
            return state.held
        }
        for completion in held { completion() }
    }

    /// Runs `completion` once no report is in flight: now, or when the last one ends.
    func whenIdle(_ completion: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.reportsInFlight > 0 else { return true }
            state.held.append(completion)
            return false
        }
        if now { completion() }
    }

    /// Closes the gate (no report starts after) and runs `completion` once no report is in
    /// flight.
    func close(then completion: @escaping @Sendable () -> Void) {
        state.withLock { $0.isClosed = true }
        whenIdle(completion)
    }

    /// `progress` behind the gate, or `nil` for none: each call is a report.
    func guarding(_ progress: LoadProgressHandler?) -> LoadProgressHandler? {
        guard let progress else { return nil }
        return { [self] report in
            guard enter() else { return }
            progress(report)
            leave()
        }
    }
}
