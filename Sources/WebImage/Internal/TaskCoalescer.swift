/// Runs one operation per key for any number of concurrent callers: the first caller for a
/// key starts it, later callers wait for the same result.
///
/// Each caller can be cancelled on its own: it completes at once, exactly once, with
/// `CancellationError`, while the others keep waiting. When the last waiter has gone, the
/// operation's task is cancelled too. Who waits, and whether the one leaving was the
/// last, is kept by ``SharedWork`` (the downloader's requests use the same unit).
/// Thread-safe.
///
/// ```swift
/// let decodes = TaskCoalescer<String, Image>()
/// let image = try await decodes.value(forKey: key) { try decode(key) }
/// ```
package final class TaskCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Flight {
        let id: Int
        var task: Task<Void, Never>?
        var work = SharedWork<CheckedContinuation<Value, any Error>>()
    }

    private struct State {
        var nextID = 0
        var flights: [Key: Flight] = [:]
    }

    private let state = LockedValue(State())
    /// Called by a caller that starts an operation, between registering it and starting its
    /// task: a seam for tests, which cancel the caller there (a window no timing reaches).
    private let beforeStarting: (@Sendable () -> Void)?

    /// A coalescer with nothing in flight.
    package init() {
        beforeStarting = nil
    }

    /// A coalescer that calls `beforeStarting` in that window (tests only).
    package init(beforeStarting: @escaping @Sendable () -> Void) {
        self.beforeStarting = beforeStarting
    }

    /// The result of `operation` for `key`, shared with every concurrent caller of the same
    /// key. Throws `CancellationError` when the calling task is cancelled while waiting.
    package func value(forKey key: Key, operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let waiterID = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Registering and the cancellation check happen under one lock, and the
                // handler below takes the same lock, so exactly one of them resumes.
                let flightToStart = state.withLock { state -> Int? in
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                        return nil
                    }
                    if state.flights[key] != nil {
                        state.flights[key]?.work.join(continuation, id: waiterID)
                        return nil
                    }
                    state.nextID += 1
                    var flight = Flight(id: state.nextID)
                    flight.work.join(continuation, id: waiterID)
                    state.flights[key] = flight
                    return flight.id
                }
                guard let flightID = flightToStart else { return }
                beforeStarting?()
                let task = Task {
                    let result: Result<Value, any Error>
                    do { result = .success(try await operation()) } catch { result = .failure(error) }
                    self.finish(key, flightID: flightID, with: result)
                }
                // The last waiter may have left between the flight's registration and here,
                // finding no task to cancel: then the task is cancelled now, or it would run
                // to its end for nobody (and a new caller would start a second one).
                let attached = state.withLock { state -> Bool in
                    guard state.flights[key]?.id == flightID else { return false }
                    state.flights[key]?.task = task
                    return true
                }
                if !attached { task.cancel() }
            }
        } onCancel: {
            let (continuation, orphanedTask) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
                switch state.flights[key]?.work.leave(id: waiterID) {
                case nil, .absent?:
                    return (nil, nil)
                case .left(let continuation)?:
                    return (continuation, nil)
                case .lastLeft(let continuation)?:
                    let task = state.flights.removeValue(forKey: key)?.task
                    return (continuation, task)
                }
            }
            orphanedTask?.cancel()
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Whether an operation for `key` is in flight (a new caller would join it).
    package func isInFlight(forKey key: Key) -> Bool { state.withLock { $0.flights[key] != nil } }

    /// The number of keys with an operation in flight (for tests).
    package var inFlightCount: Int { state.withLock { $0.flights.count } }

    /// The number of callers waiting, over every key (for tests: a caller counts once it
    /// has joined, which is when its wait is sure to be shared).
    package var waiterCount: Int { state.withLock { $0.flights.values.reduce(0) { $0 + $1.work.subscribers.count } } }

    private func finish(_ key: Key, flightID: Int, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard var flight = state.flights[key], flight.id == flightID else { return [] }
            state.flights[key] = nil
            flight.work.close()
            return flight.work.takeAll().map(\.subscriber)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
