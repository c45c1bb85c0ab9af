import Foundation

extension AnimatedImagePlayer {
    /// The order frames play in.
    public enum PlaybackMode: Sendable, Equatable {
        /// First to last, then again from the first: 0 1 2 | 0 1 2.
        case normal
        /// Last to first: 2 1 0 | 2 1 0.
        case reverse
        /// First to last and back; a loop ends on arriving at the first frame again:
        /// 0 1 2 1 0 | 1 2 1 0.
        case bounce
        /// Last to first and back; a loop ends on arriving at the last frame again:
        /// 2 1 0 1 2 | 1 0 1 2.
        case reversedBounce
    }

    /// How a player plays and how much it may buffer.
    public struct Configuration: Sendable, Equatable {
        /// Bytes of decoded frames the look-ahead buffer may hold. 0 (the default) sizes it
        /// automatically to a fifth of the memory the kernel reports available; 1 means no
        /// look-ahead: only the frame being shown is held, and each next frame is decoded
        /// when it is due. The buffer always holds at least one frame.
        public var maxBufferSize = 0
        /// The play order. Default ``PlaybackMode/normal``.
        public var playbackMode = PlaybackMode.normal
        /// Speed: 2 plays twice as fast; 0 or less holds the current frame. Default 1.
        public var playbackRate: Double = 1
        /// Loops to play before stopping, overriding the image's; 0 means forever.
        /// Default `nil` (the image's own loop count).
        public var loopCount: Int?

        /// The defaults.
        public init() {}
    }

    /// The automatic buffer size: a fifth of `MemAvailable`, or 64 MiB where it cannot be
    /// read. A fifth leaves room for the other players and the rest of the process.
    static func automaticBufferSize() -> Int {
        (Configuration.SystemMemory.availableBytes() ?? 320 << 20) / 5
    }
}

extension AnimatedImagePlayer.Configuration {
    /// What the kernel says about free memory, for the player's automatic buffer size.
    enum SystemMemory {
        /// `MemAvailable` from `/proc/meminfo`, in bytes: what can be allocated without
        /// swapping, counting reclaimable caches. `nil` where the file is missing or unreadable.
        static func availableBytes() -> Int? {
            guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
            return parseAvailable(text)
        }

        /// The `MemAvailable:  N kB` line of a meminfo text, in bytes.
        static func parseAvailable(_ meminfo: String) -> Int? {
            for line in meminfo.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
                let (bytes, overflow) = kilobytes.multipliedReportingOverflow(by: 1024)
                return overflow ? nil : bytes
            }
            return nil
        }
    }
}

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
