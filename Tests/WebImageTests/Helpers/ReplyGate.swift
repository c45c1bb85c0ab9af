import WebImage

/// A one-way switch a test opens to let a ``LoopbackServer/Reply/gated(_:firstPart:gate:interval:contentType:)``
/// reply finish its body.
final class ReplyGate: Sendable {
    private let state = LockedValue(false)

    /// Whether the gate has been opened.
    var isOpen: Bool { state.withLock { $0 } }

    /// Opens the gate; later calls do nothing.
    func open() { state.withLock { $0 = true } }
}
