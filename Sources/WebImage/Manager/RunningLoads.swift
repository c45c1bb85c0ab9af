import Synchronization

/// The loads a manager has in flight, so ``ImageManager/cancelAll()`` can reach them.
///
/// Thread-safe. A load registers before its task exists and unregisters when it ends;
/// cancelling a slot whose task is not yet attached cancels the task when it is.
final class RunningLoads: Sendable {
    /// One load's place in the registry: the same "cancel may come before the action"
    /// holder the `async` downloader calls use.
    typealias Slot = PendingCancellation

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
