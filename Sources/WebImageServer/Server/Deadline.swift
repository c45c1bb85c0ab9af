import WebImage

/// Runs `work` in a task of its own and returns its result, or throws `timeoutError` once
/// `duration` has passed, or ``ImageServerError/clientClosedRequest`` once `watch` sees the
/// client go, whichever comes first; on the time-out or the departure the work's task is
/// cancelled but not awaited.
///
/// Not awaiting is the point: a decode already running on a worker thread cannot stop
/// part-way, and the client must get its 503 or 504 on time, not when the decode ends. The
/// work's task keeps its worker slot until it really finishes, so the queue's count stays
/// true. Cancelling the calling task cancels the work too.
func withDeadline<T: Sendable>(
    _ duration: Duration,
    timeoutError: ImageServerError,
    abandonedWhenClosed watch: ConnectionWatch? = nil,
    _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>()
    let workTask = Task {
        do { race.finish(.success(try await work())) } catch { race.finish(.failure(error)) }
    }
    let timer = Task {
        try await Task.sleep(for: duration)
        if race.finish(.failure(timeoutError)) { workTask.cancel() }
    }
    let departure = watch?.onClose {
        if race.finish(.failure(ImageServerError.clientClosedRequest)) { workTask.cancel() }
    }
    defer {
        timer.cancel()
        watch?.removeObserver(departure)
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { race.wait(with: $0) }
    } onCancel: {
        workTask.cancel()
        race.finish(.failure(CancellationError()))
    }
}

/// The first outcome of a ``withDeadline(_:timeoutError:_:)`` race, handed to its waiter
/// whether the waiter arrives before or after it.
final class DeadlineRace<T: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<T, any Error>)
        case finished(Result<T, any Error>)
        case delivered
    }

    private let state = LockedValue(State.idle)

    /// Records `result` if nothing finished before; returns whether it was the first.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (first, waiter) = state.withLock { state -> (Bool, CheckedContinuation<T, any Error>?) in
            switch state {
            case .idle:
                state = .finished(result)
                return (true, nil)
            case .waiting(let continuation):
                state = .delivered
                return (true, continuation)
            case .finished, .delivered:
                return (false, nil)
            }
        }
        waiter?.resume(with: result)
        return first
    }

    /// Waits with `continuation`, resumed at once when the outcome is already known.
    func wait(with continuation: CheckedContinuation<T, any Error>) {
        let ready = state.withLock { state -> Result<T, any Error>? in
            switch state {
            case .finished(let result):
                state = .delivered
                return result
            default:
                state = .waiting(continuation)
                return nil
            }
        }
        if let ready { continuation.resume(with: ready) }
    }
}
