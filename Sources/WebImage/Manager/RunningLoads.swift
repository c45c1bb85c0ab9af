import Synchronization

/// The loads a manager has in flight, so ``ImageManager/cancelAll()`` can reach them.
///
/// Thread-safe. A load registers before its task exists and unregisters when it ends;
/// cancelling a slot whose task is not yet attached cancels the task when it is.
final class RunningLoads: Sendable {
    /// One load's place in the registry.
    final class Slot: Sendable {
        private enum State { case waiting, running(@Sendable () -> Void), cancelled }
        private let state = Mutex(State.waiting)

        /// Sets what cancelling does (cancel the load's task); runs it at once when the
        /// slot was cancelled already.
        func attach(_ cancel: @escaping @Sendable () -> Void) {
            let cancelNow = state.withLock { state in
                if case .cancelled = state { return true }
                state = .running(cancel)
                return false
            }
            if cancelNow { cancel() }
        }

        func cancel() {
            let action: (@Sendable () -> Void)? = state.withLock { state in
                defer { state = .cancelled }
                if case .running(let action) = state { return action }
                return nil
            }
            action?()
        }
    }

    private let slots = Mutex<[ObjectIdentifier: Slot]>([:])

    var count: Int { slots.withLock { $0.count } }

    /// A new registered slot.
    func register() -> Slot {
        let slot = Slot()
        slots.withLock { $0[ObjectIdentifier(slot)] = slot }
        return slot
    }

    func unregister(_ slot: Slot) {
        _ = slots.withLock { $0.removeValue(forKey: ObjectIdentifier(slot)) }
    }

    func cancelAll() {
        let all = slots.withLock { Array($0.values) }
        for slot in all { slot.cancel() }
    }
}
