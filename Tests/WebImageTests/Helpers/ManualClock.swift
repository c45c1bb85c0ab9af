@testable import WebImage

/// A clock that only moves when a test says so, so playback tests run without waiting.
final class ManualClock: AnimationClock {
    private let time = LockedValue(Duration.zero)

    var now: Duration { time.withLock { $0 } }

    /// Moves the clock forward by `step`.
    func advance(by step: Duration) {
        time.withLock { $0 += step }
    }
}
