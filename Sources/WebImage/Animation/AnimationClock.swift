/// The time source an ``AnimatedImagePlayer`` reads on every tick.
///
/// Injected so that tests (and tools that render an animation off-screen) drive playback
/// with a clock they advance themselves, without real waiting. Implementations must be
/// thread-safe and monotonic.
///
/// ```swift
/// let player = AnimatedImagePlayer(image: animation, clock: SystemAnimationClock())
/// ```
public protocol AnimationClock: Sendable {
    /// Time elapsed since an arbitrary fixed origin; never decreases.
    var now: Duration { get }
}

/// The real monotonic clock (`ContinuousClock`), measured from the moment it was made.
/// Thread-safe: immutable.
public struct SystemAnimationClock: AnimationClock {
    private let origin: ContinuousClock.Instant

    /// A clock whose origin is now.
    public init() {
        origin = ContinuousClock.now
    }

    public var now: Duration { origin.duration(to: ContinuousClock.now) }
}
