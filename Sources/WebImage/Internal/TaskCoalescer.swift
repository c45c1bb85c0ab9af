import Synchronization

/// Runs one operation per key for any number of concurrent callers: the first caller for a
/// key starts it, later callers wait for the same result.
///
/// Each caller can be cancelled on its own: it completes at once, exactly once, with
/// `CancellationError`, while the others keep waiting. When the last waiter has gone, the
/// operation's task is cancelled too. Thread-safe.
final class TaskCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Flight {
        let id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
    }

    private struct State {
        var nextID: UInt64 = 0
        var flights: [Key: Flight] = [:]
    }

    private let state = Mutex(State())

    /// The result of `operation` for `key`, shared with every concurrent caller of the same
    /// key. Throws `CancellationError` when the calling task is cancelled while waiting.
    func value(forKey key: Key, operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let waiterID = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Registering and the cancellation check happen under one lock, and the
                // handler below takes the same lock, so exactly one of them resumes.
                let flightToStart = state.withLock { state -> UInt64? in
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                        return nil
                    }
                    if state.flights[key] != nil {
                        state.flights[key]?.waiters[waiterID] = continuation
                        return nil
                    }
                    state.nextID += 1
                    var flight = Flight(id: state.nextID)
                    flight.waiters[waiterID] = continuation
                    state.flights[key] = flight
                    return flight.id
                }
                guard let flightID = flightToStart else { return }
                let task = Task {
                    let result: Result<Value, any Error>
                    do { result = .success(try await operation()) } catch { result = .failure(error) }
                    self.finish(key, flightID: flightID, with: result)
                }
                state.withLock { state in
                    if state.flights[key]?.id == flightID { state.flights[key]?.task = task }
                }
            }
        } onCancel: {
            let (continuation, orphanedTask) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
                guard let continuation = state.flights[key]?.waiters.removeValue(forKey: waiterID) else { return (nil, nil) }
                guard let flight = state.flights[key], flight.waiters.isEmpty else { return (continuation, nil) }
                state.flights[key] = nil
                return (continuation, flight.task)
            }
            orphanedTask?.cancel()
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// The number of keys with an operation in flight (for tests).
    var inFlightCount: Int { state.withLock { $0.flights.count } }

    private func finish(_ key: Key, flightID: UInt64, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard let flight = state.flights[key], flight.id == flightID else { return [] }
            state.flights[key] = nil
            return Array(flight.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
