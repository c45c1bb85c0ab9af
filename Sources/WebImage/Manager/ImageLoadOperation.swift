import Synchronization

/// A running load that can be cancelled: what the callback form of
/// ``ImageManaging/loadImage(with:options:context:progress:completion:)`` returns.
///
/// Thread-safe. Cancelling is idempotent; the cancel action runs once, on the caller's thread.
///
/// ```swift
/// let operation = manager.loadImage(with: url, options: [], context: ImageContext(), progress: nil) { _ in }
/// operation.cancel()
/// ```
public final class ImageLoadOperation: Sendable {
    private let state: Mutex<(cancelled: Bool, action: (@Sendable () -> Void)?)>

    /// Creates an operation whose ``cancel()`` runs `onCancel` once.
    public init(onCancel: @escaping @Sendable () -> Void) {
        state = Mutex((false, onCancel))
    }

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Cancels the load; later calls do nothing.
    public func cancel() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            defer { state.action = nil }
            return state.action
        }
        action?()
    }
}
