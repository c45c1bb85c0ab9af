/// Holds how to cancel a piece of work that a cancellation may reach before the work
/// exists: a cancel that arrives first is remembered and applied as soon as the action is
/// stored. Three states: empty, holding the action, cancelled.
///
/// ``awaitCallback(_:)``, under the `async` faces of the downloader, the prefetcher and
/// ``ImageManaging``, hands it from the body of `withTaskCancellationHandler` to its
/// `onCancel` handler, which may run before, during or after the work is started; the manager's ``RunningLoads`` registers one per load
/// before the load's task exists. Thread-safe; the action runs at most once, outside the
/// lock.
///
/// ```swift
/// let holder = PendingCancellation()
/// holder.store { token.cancel() }   // from the work
/// holder.cancel()                   // from onCancel, before or after
/// ```
final class PendingCancellation: Sendable {
    private enum Slot { case empty, action(@Sendable () -> Void), cancelled }
    private let slot = LockedValue(Slot.empty)

    /// Stores how to cancel the started work; runs it at once if cancellation came first.
    func store(_ cancel: @escaping @Sendable () -> Void) {
        let cancelNow = slot.withLock { slot in
            if case .cancelled = slot { return true }
            slot = .action(cancel)
            return false
        }
        if cancelNow { cancel() }
    }

    /// Cancels the stored work, or remembers to cancel it when it is stored.
    func cancel() {
        let action: (@Sendable () -> Void)? = slot.withLock { slot in
            defer { slot = .cancelled }
            if case .action(let action) = slot { return action }
            return nil
        }
        action?()
    }
}

extension PendingCancellation {
    /// Starts callback-style work with `start` and waits for its result: the one way the
    /// `async` faces of the downloader, the prefetcher and ``ImageManaging`` are built on
    /// their callback forms. `start` calls the completion it is given exactly once and
    /// returns how to cancel the work (`nil` when there is nothing to cancel); cancelling
    /// the calling task runs that action, at once or as soon as `start` has returned it.
    static func awaitCallback<Value: Sendable>(
        _ start: (_ completion: @escaping @Sendable (Value) -> Void) -> (@Sendable () -> Void)?
    ) async -> Value {
        let holder = PendingCancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                if let cancel = start({ continuation.resume(returning: $0) }) { holder.store(cancel) }
            }
        } onCancel: {
            holder.cancel()
        }
    }
}
