import WebImage

/// Admission to the server's image jobs: at most `workers` run at once, at most
/// `queueSize` wait behind them, and anyone past that is refused at once (a 429).
///
/// The decisions live in ``State``, a plain state machine (events in, actions out, no locks,
/// no continuations), tested alone; this class holds it behind one lock and resumes the
/// waiting tasks it names, outside the lock. A waiter whose task is cancelled (its request
/// timed out) leaves the queue and never runs. Thread-safe.
///
/// ```swift
/// try await queue.enter()          // throws ImageServerError.queueFull when full
/// defer { queue.leave() }
/// ```
final class JobQueue: Sendable {
    /// The queue's bookkeeping: running count and waiters in arrival order.
    struct State {
        /// What an arrival gets.
        enum Admission: Equatable {
            case run
            case wait(id: UInt64)
            case reject
        }

        let workers: Int
        let queueSize: Int
        private(set) var running = 0
        private(set) var waiting: [UInt64] = []
        private var nextID: UInt64 = 0

        init(workers: Int, queueSize: Int) {
            self.workers = max(1, workers)
            self.queueSize = max(0, queueSize)
        }

        /// Whether a job arriving now would be refused.
        var isFull: Bool { !(running < workers && waiting.isEmpty) && waiting.count >= queueSize }

        /// A job arrives.
        mutating func arrive() -> Admission {
            if running < workers, waiting.isEmpty {
                running += 1
                return .run
            }
            guard waiting.count < queueSize else { return .reject }
            nextID += 1
            waiting.append(nextID)
            return .wait(id: nextID)
        }

        /// A running job finishes; returns the waiter that takes its place, if any.
        mutating func finish() -> UInt64? {
            guard !waiting.isEmpty else {
                running = max(0, running - 1)
                return nil
            }
            // The slot passes straight to the oldest waiter: `running` stays the same.
            return waiting.removeFirst()
        }

        /// A waiter gives up. Returns `false` when it is no longer waiting (it was already
        /// handed a slot, which it must then give back with ``finish()``).
        mutating func abandon(id: UInt64) -> Bool {
            guard let index = waiting.firstIndex(of: id) else { return false }
            waiting.remove(at: index)
            return true
        }
    }

    private struct Locked {
        var state: State
        var continuations: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// Waiters cancelled before their continuation was stored.
        var cancelledEarly: Set<UInt64> = []
        /// Waiters handed a slot before their continuation was stored.
        var grantedEarly: Set<UInt64> = []
    }

    private let locked: LockedValue<Locked>

    init(workers: Int, queueSize: Int) {
        locked = LockedValue(Locked(state: State(workers: workers, queueSize: queueSize)))
    }

    /// Jobs running now.
    var running: Int { locked.withLock { $0.state.running } }
    /// Jobs waiting now.
    var waiting: Int { locked.withLock { $0.state.waiting.count } }
    /// Whether a job arriving now would get ``ImageServerError/queueFull``.
    var isFull: Bool { locked.withLock { $0.state.isFull } }

    /// Waits for a worker slot. Throws ``ImageServerError/queueFull`` at once when the queue
    /// is full, and `CancellationError` when the task is cancelled while it waits.
    func enter() async throws {
        let admission = locked.withLock { $0.state.arrive() }
        switch admission {
        case .run: return
        case .reject: throw ImageServerError.queueFull
        case .wait(let id):
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let early = locked.withLock { locked -> Result<Void, any Error>? in
                        if locked.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                        if locked.grantedEarly.remove(id) != nil { return .success(()) }
                        locked.continuations[id] = continuation
                        return nil
                    }
                    if let early { continuation.resume(with: early) }
                }
            } onCancel: {
                let continuation = locked.withLock { locked -> CheckedContinuation<Void, any Error>? in
                    guard locked.state.abandon(id: id) else { return nil }
                    guard let continuation = locked.continuations.removeValue(forKey: id) else {
                        locked.cancelledEarly.insert(id)
                        return nil
                    }
                    return continuation
                }
                continuation?.resume(throwing: CancellationError())
            }
        }
    }

    /// Gives a slot back; the oldest waiter, if any, takes it.
    func leave() {
        let next = locked.withLock { locked -> CheckedContinuation<Void, any Error>? in
            guard let id = locked.state.finish() else { return nil }
            guard let continuation = locked.continuations.removeValue(forKey: id) else {
                locked.grantedEarly.insert(id)
                return nil
            }
            return continuation
        }
        next?.resume()
    }
}
