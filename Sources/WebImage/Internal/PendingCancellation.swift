import Synchronization

/// Hands the cancel action of work started inside `withTaskCancellationHandler` to its
/// `onCancel` handler, which may run before, during or after the work is started: a cancel
/// that arrives first is remembered and applied as soon as the action is stored.
final class PendingCancellation: Sendable {
    private enum Slot { case empty, action(@Sendable () -> Void), cancelled }
    private let slot = Mutex(Slot.empty)

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
