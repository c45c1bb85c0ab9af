import Synchronization

/// Catches results a manager delivers while `loadImage` is still running (memory hits), so
/// the binding can show them before `setImage` returns instead of a main-actor hop later.
final class SynchronousResults: Sendable {
    private enum Stage {
        case calling([Result<ImageLoadResult, WebImageError>])
        case returned
    }

    private let stage = Mutex(Stage.calling([]))

    /// Keeps `result` if `loadImage` has not returned yet; `false` means deliver it yourself.
    func hold(_ result: Result<ImageLoadResult, WebImageError>) -> Bool {
        stage.withLock { stage in
            guard case .calling(var held) = stage else { return false }
            held.append(result)
            stage = .calling(held)
            return true
        }
    }

    /// Marks `loadImage` as returned and hands over what was held.
    func release() -> [Result<ImageLoadResult, WebImageError>] {
        stage.withLock { stage in
            defer { stage = .returned }
            if case .calling(let held) = stage { return held }
            return []
        }
    }
}
