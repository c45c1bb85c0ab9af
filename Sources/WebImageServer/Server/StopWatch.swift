import ServiceLifecycle
import WebImage

/// Watches a service group's stop, so that ``ImageServer/run(onReady:)`` returns within a
/// bounded time of it and can say which of its services did not stop.
///
/// swift-service-lifecycle stops a group in two steps: a graceful shutdown, bounded by
/// `maximumGracefulShutdownDuration`, then a cancellation of every service, which it waits
/// for without limit (`maximumCancellationDuration` turns that wait into a `fatalError`
/// instead, which takes down whatever else the process was doing). One task that ignores
/// cancellation (a connection's handler suspended somewhere cancellation does not reach)
/// then kept `run` from returning for good: the tests hung so, twice, and a `webimage
/// serve` would wait for systemd's kill. With this watch, `run` waits for the group at most
/// the graceful-stop time plus ``cancellationAllowance``, logs the services still running,
/// and goes on without them (the process usually exits next).
///
/// It is itself a service of the group, the last one, so that it hears of a graceful
/// shutdown first (a group stops its services in reverse order). Thread-safe.
final class StopWatch: Service, Sendable {
    /// How long cancelled services get to end, after the graceful stop's time: long
    /// enough for a loaded machine (a sanitizer build runs the server tests several times
    /// slower), short enough that a default stop (20 s of grace) ends well within
    /// systemd's 90 s before its kill.
    static let cancellationAllowance: Duration = .seconds(10)

    private enum Stop {
        /// Nothing began.
        case none
        /// A graceful shutdown began then.
        case graceful(ContinuousClock.Instant)
        /// The group was cancelled without a graceful step (a service failed).
        case cancelled(ContinuousClock.Instant)

        /// When the stop began, either way; `nil` before.
        var began: ContinuousClock.Instant? {
            switch self {
            case .none: nil
            case .graceful(let began), .cancelled(let began): began
            }
        }
    }

    private struct State {
        var stop = Stop.none
        /// Callers of ``waitForStop()``, resumed with the moment the stop began.
        var waiters: [CheckedContinuation<ContinuousClock.Instant, Never>] = []
        /// The names of the tracked services whose `run` has not returned, by the number
        /// each got when it was tracked.
        var running: [Int: String] = [:]
        var nextID = 0
    }

    private let state = LockedValue(State())

    /// When the graceful shutdown began; `nil` before, or when the group was cancelled.
    var gracefulStopBegan: ContinuousClock.Instant? {
        state.withLock { state in
            if case .graceful(let began) = state.stop { return began }
            return nil
        }
    }

    /// The names of the tracked services still running, in the order they were tracked.
    var servicesStillRunning: [String] {
        state.withLock { state in state.running.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// `service`, reporting to this watch when its `run` starts and returns.
    func track(_ service: any Service, named name: String) -> any Service {
        // The number is taken here, not when `run` starts: the group starts its services
        // in child tasks, in no fixed order, and the names are listed in tracking order.
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return TrackedService(service: service, id: id, name: name, watch: self)
    }

    func run() async throws {
        do {
            try await gracefulShutdown()
            began(.graceful(.now))
        } catch {
            began(.cancelled(.now))
            throw error
        }
    }

    /// Waits for `group` (a task running the group this watch is in) to end, but after a
    /// stop began no longer than `gracePeriod` plus ``cancellationAllowance``. Returns `nil`
    /// when the group ended, else the names of the tracked services still running when it
    /// gave up (none, when the group had not even started them); rethrows the group's error.
    func awaitEnd(of group: Task<Void, any Error>, gracePeriod: Duration, allowance: Duration = cancellationAllowance) async throws -> [String]? {
        let race = DeadlineRace<Bool>()
        // Unstructured, both: the caller's cancellation (which starts a graceful stop) must
        // not end the wait itself, and a group that never ends must not hold the caller.
        Task {
            do {
                try await group.value
                race.finish(.success(true))
            } catch {
                race.finish(.failure(error))
            }
        }
        let timer = Task {
            // From the stop's start, whichever way it began: a group cancelled because a
            // service failed may still stop the others gracefully first.
            let began = await self.waitForStop()
            try await Task.sleep(until: began + gracePeriod + allowance, clock: .continuous)
            race.finish(.success(false))
        }
        defer { timer.cancel() }
        let ended = try await withCheckedThrowingContinuation { race.wait(with: $0) }
        return ended ? nil : servicesStillRunning
    }

    private func began(_ stop: Stop) {
        let (waiters, moment) = state.withLock { state -> ([CheckedContinuation<ContinuousClock.Instant, Never>], ContinuousClock.Instant?) in
            if case .none = state.stop { state.stop = stop }
            defer { state.waiters = [] }
            return (state.waiters, state.stop.began)
        }
        guard let moment else { return }
        for waiter in waiters { waiter.resume(returning: moment) }
    }

    /// Returns when the stop began, once it has (at once when it had).
    private func waitForStop() async -> ContinuousClock.Instant {
        await withCheckedContinuation { (continuation: CheckedContinuation<ContinuousClock.Instant, Never>) in
            let begun = state.withLock { state -> ContinuousClock.Instant? in
                guard let began = state.stop.began else {
                    state.waiters.append(continuation)
                    return nil
                }
                return began
            }
            if let begun { continuation.resume(returning: begun) }
        }
    }

    private func started(_ id: Int, _ name: String) {
        state.withLock { $0.running[id] = name }
    }

    private func ended(_ id: Int) {
        _ = state.withLock { $0.running.removeValue(forKey: id) }
    }

    /// A service whose `run` the watch sees start and return. It runs the service in the
    /// same task, so the group's graceful-shutdown signal (a task local) reaches it.
    private struct TrackedService: Service {
        let service: any Service
        let id: Int
        let name: String
        let watch: StopWatch

        func run() async throws {
            watch.started(id, name)
            defer { watch.ended(id) }
            try await service.run()
        }
    }
}
