import Foundation

/// The binding layer's per-target record: which load runs under each operation key, the
/// generation that tells a current result from a late one, and the manager loads go
/// through. What SDWebImage keeps in a view's associated objects, held by the target
/// itself because Swift on Linux has no associated objects.
///
/// Main-actor isolated, like ``ImageTarget``. When the target (and so this state) is
/// released, every load still running for it is cancelled.
///
/// ```swift
/// @MainActor final class Thumbnail: ImageTarget {
///     let webImageState = WebImageState(manager: manager)
/// }
/// ```
@MainActor
public final class WebImageState {
    /// One operation key's load.
    struct Slot {
        let generation: UInt64
        /// Dropped with the final result: a completion that captures the target's owner
        /// would otherwise keep owner, target and state alive in a cycle.
        var completion: WebImageBindingCompletion?
        var operation: ImageLoadOperation?
        var isFinished = false
    }

    /// The manager the target's loads go through.
    public var manager: any ImageManaging
    /// The URL of the latest load started on the target, under any key.
    public private(set) var currentURL: URL?
    private var slots: [String: Slot] = [:]
    private var latestKey: String?
    private var nextGeneration: UInt64 = 0

    /// Creates the state for one target, loading through `manager`.
    public init(manager: any ImageManaging) {
        self.manager = manager
    }

    /// State that loads through ``ImageManager/shared``: what most targets declare,
    /// `let webImageState = WebImageState()`.
    public convenience init() {
        self.init(manager: ImageManager.shared)
    }

    // As SDWebImage does for a deallocated view, the loads are cancelled without calling
    // their completions: there is no target left to report on.
    isolated deinit {
        for slot in slots.values { slot.operation?.cancel() }
    }

    /// Starts a new load under `key` and returns its generation. The load it replaces is
    /// cancelled; its completion, returned here, must be called with `.cancelled` once
    /// the caller is done changing the state.
    func begin(key: String, url: URL?, completion: WebImageBindingCompletion?) -> (UInt64, replaced: WebImageBindingCompletion?) {
        let old = slots[key]
        old?.operation?.cancel()
        nextGeneration += 1
        slots[key] = Slot(generation: nextGeneration, completion: completion)
        latestKey = key
        currentURL = url
        return (nextGeneration, old?.isFinished == false ? old?.completion : nil)
    }

    /// Keeps the operation of a load that is still current and running, and cancels one
    /// that was replaced or cancelled while it started (no later cancel could reach it).
    func attach(_ operation: ImageLoadOperation, key: String, generation: UInt64) {
        guard slots[key]?.generation == generation else {
            operation.cancel()
            return
        }
        slots[key]?.operation = operation
    }

    /// Whether the load is current and has not delivered its result yet.
    func isRunning(key: String, generation: UInt64) -> Bool {
        guard let slot = slots[key] else { return false }
        return slot.generation == generation && !slot.isFinished
    }

    /// Records a result of the load and returns its slot (with the completion to call), or
    /// `nil` when the load is no longer current (replaced or cancelled) and the result must
    /// be dropped. With `keepsOperation` (a `.refreshCached` load, whose first result is the
    /// cached image while the refresh still runs) the operation and the completion stay
    /// until its second result, so that a new load or a cancel still stops the refresh and
    /// the refreshed image is still reported; cancelling a finished one does nothing.
    func finish(key: String, generation: UInt64, keepsOperation: Bool) -> Slot? {
        guard var slot = slots[key], slot.generation == generation else { return nil }
        let delivered = slot
        if !keepsOperation || slot.isFinished {
            slot.operation = nil
            slot.completion = nil
        }
        slot.isFinished = true
        slots[key] = slot
        return delivered
    }

    /// The load's manager let go of its completion: nothing more can arrive, so a finished
    /// load kept for a refresh (see ``finish(key:generation:keepsOperation:)``) lets go of
    /// its completion and operation.
    func loadEnded(key: String, generation: UInt64) {
        guard var slot = slots[key], slot.generation == generation, slot.isFinished else { return }
        slot.completion = nil
        slot.operation = nil
        slots[key] = slot
    }

    /// Cancels the load under `key` (default: the latest started) and returns its
    /// completion to call with `.cancelled`, if it had not finished.
    func cancel(key: String?) -> WebImageBindingCompletion? {
        guard let key = key ?? latestKey, let slot = slots.removeValue(forKey: key) else { return nil }
        slot.operation?.cancel()
        return slot.isFinished ? nil : slot.completion
    }
}

/// Receives each result of a binding load, on the main actor; see ``WebImageBinding``.
public typealias WebImageBindingCompletion = (Result<ImageLoadResult, WebImageError>) -> Void
