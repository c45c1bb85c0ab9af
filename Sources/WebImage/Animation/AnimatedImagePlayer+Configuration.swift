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
        /// automatically to a fifth of the memory the kernel reports available (the
        /// container's limit counted), and at most what the image's
        /// ``AnimatedImage/pixelLimit`` lets all its frames take; 1 means no
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

    /// The automatic buffer size for `image`: a fifth of the memory available to the
    /// process (``Configuration/SystemMemory/availableBytes()``), or of 320 MiB where it
    /// cannot be read, and never more than holding all frames at once may take
    /// (``AnimatedImage/pixelLimit`` at 4 bytes a pixel): a 140 KB GIF of 10,000 frames of
    /// 1,000 × 1,000 that ``AnimatedImage/preloadAllFrames()`` refuses must not get
    /// gigabytes of look-ahead either. A fifth leaves room for the other players and the
    /// rest of the process.
    static func automaticBufferSize(for image: AnimatedImage) -> Int {
        let memory = (Configuration.SystemMemory.availableBytes() ?? 320 << 20) / 5
        let (allFrames, overflow) = max(0, image.pixelLimit).multipliedReportingOverflow(by: 4)
        return overflow ? memory : min(memory, allFrames)
    }
}

extension AnimatedImagePlayer.Configuration {
    /// What the kernel says about free memory, for the player's automatic buffer size.
    enum SystemMemory {
        /// The bytes the process can still allocate: `MemAvailable` from `/proc/meminfo`
        /// (what can be allocated without swapping, counting reclaimable caches), or less
        /// when the process's memory cgroup (a container's limit) leaves less. `nil` where
        /// neither can be read.
        static func availableBytes() -> Int? {
            let host = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)).flatMap(parseAvailable)
            guard let group = cgroupAvailableBytes() else { return host }
            return min(host ?? group, group)
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

        /// What the process's memory cgroups leave under their limits: for the process's
        /// group and each group above it, the limit (`memory.max`, v2, or
        /// `memory.limit_in_bytes`, v1) less what is in use and cannot be reclaimed (the
        /// usage, `memory.current` or `memory.usage_in_bytes`, less the page cache the
        /// kernel would drop first, `inactive_file` or `total_inactive_file` of
        /// `memory.stat`, as `docker stats` and the kubelet count it); the least of them.
        /// `/proc/meminfo` shows the host's memory even inside a container, so a player in
        /// a 1 GiB container on a 64 GiB host budgeted gigabytes and was killed. A group
        /// above may hold the limit (a systemd slice's `MemoryMax`). `nil` with no limit or
        /// nothing readable.
        static func cgroupAvailableBytes() -> Int? {
            let membership = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
            var least: Int?
            for group in cgroupFiles(membership: membership) {
                guard let limitText = try? String(contentsOfFile: group.limit, encoding: .utf8),
                      let usageText = try? String(contentsOfFile: group.usage, encoding: .utf8) else { continue }
                let stat = (try? String(contentsOfFile: group.stat, encoding: .utf8)) ?? ""
                guard let available = available(limit: limitText, usage: usageText, stat: stat) else { continue }
                least = min(least ?? available, available)
            }
            return least
        }

        /// The files of each memory cgroup to read, for the process's `/proc/self/cgroup`
        /// text: its own group's and each ancestor's, under the v2 and v1 hierarchies, down
        /// to the hierarchies' roots (inside a container with its own cgroup namespace, the
        /// root is the container's group).
        static func cgroupFiles(membership: String, root: String = "/sys/fs/cgroup") -> [(limit: String, usage: String, stat: String)] {
            var files: [(String, String, String)] = []
            var seen: Set<String> = []
            func add(_ directory: String, v2: Bool) {
                guard seen.insert(directory).inserted else { return }
                files.append(v2
                    ? (directory + "/memory.max", directory + "/memory.current", directory + "/memory.stat")
                    : (directory + "/memory.limit_in_bytes", directory + "/memory.usage_in_bytes", directory + "/memory.stat"))
            }
            func addWithAncestors(_ path: Substring, base: String, v2: Bool) {
                var parts = path.split(separator: "/")
                while !parts.isEmpty {
                    add(base + "/" + parts.joined(separator: "/"), v2: v2)
                    parts.removeLast()
                }
                add(base, v2: v2)
            }
            for line in membership.split(separator: "\n") {
                let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3, fields[2].hasPrefix("/"), !fields[2].split(separator: "/").contains("..") else { continue }
                if fields[0] == "0", fields[1].isEmpty {
                    addWithAncestors(fields[2], base: root, v2: true)
                } else if fields[1].split(separator: ",").contains("memory") {
                    addWithAncestors(fields[2], base: root + "/memory", v2: false)
                }
            }
            add(root, v2: true)
            add(root + "/memory", v2: false)
            return files
        }

        /// The limit less the unreclaimable usage, from a group's files' texts; `nil` for no
        /// limit (`max` in v2; v1 writes a number near 2^63 instead) or an unreadable text.
        static func available(limit: String, usage: String, stat: String = "") -> Int? {
            let limitText = limit.trimmingCharacters(in: .whitespacesAndNewlines)
            guard limitText != "max", let limit = Int(limitText), limit < 1 << 60,
                  let usage = Int(usage.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
            var reclaimable = 0
            for line in stat.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count == 2, fields[0] == "inactive_file" || fields[0] == "total_inactive_file",
                      let bytes = Int(fields[1]) else { continue }
                reclaimable = max(reclaimable, bytes)
            }
            return max(0, limit - max(0, usage - reclaimable))
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
