import Foundation
import Synchronization
import Testing
@testable import WebImage

/// The player on a synthetic 3-frame animation (0.1 s, 0.2 s, 0.3 s) driven by a manual
/// clock in 10 ms ticks; after every tick the test waits for the prefetch decode, so each
/// run is deterministic.
@Suite struct AnimatedImagePlayerTests {
    typealias Mode = AnimatedImagePlayer.PlaybackMode

    func makePlayer(
        _ source: SyntheticFrameSource = SyntheticFrameSource(durations: [0.1, 0.2, 0.3]),
        mode: Mode = .normal, rate: Double = 1, loops: Int? = nil, bufferSize: Int = 1 << 20
    ) throws -> (AnimatedImagePlayer, ManualClock) {
        var configuration = AnimatedImagePlayer.Configuration()
        configuration.playbackMode = mode
        configuration.playbackRate = rate
        configuration.loopCount = loops
        configuration.maxBufferSize = bufferSize
        let clock = ManualClock()
        let player = AnimatedImagePlayer(image: try AnimatedImage(coder: source), clock: clock, configuration: configuration)
        return (player, clock)
    }

    /// Plays for `milliseconds` and returns each (time in ms, frame index) at which the
    /// shown frame changed, starting with the first frame at 0.
    func timeline(_ player: AnimatedImagePlayer, _ clock: ManualClock, milliseconds: Int,
                  each: (AnimatedImagePlayer) -> Void = { _ in }) -> [[Int]] {
        player.play()
        player.waitUntilIdle()
        player.tick()
        var changes: [[Int]] = []
        if let index = player.currentFrameIndex { changes.append([0, index]) }
        for time in stride(from: 10, through: milliseconds, by: 10) {
            clock.advance(by: .milliseconds(10))
            if player.tick(), let index = player.currentFrameIndex { changes.append([time, index]) }
            player.waitUntilIdle()
            each(player)
        }
        return changes
    }

    @Test func normalModeShowsEachFrameForItsDuration() throws {
        let (player, clock) = try makePlayer()
        #expect(timeline(player, clock, milliseconds: 1200) == [[0, 0], [100, 1], [300, 2], [600, 0], [700, 1], [900, 2], [1200, 0]])
    }

    @Test func reverseModeStartsAtTheLastFrame() throws {
        let (player, clock) = try makePlayer(mode: .reverse)
        #expect(timeline(player, clock, milliseconds: 1200) == [[0, 2], [300, 1], [500, 0], [600, 2], [900, 1], [1100, 0], [1200, 2]])
    }

    @Test func bounceModeTurnsAtBothEnds() throws {
        let (player, clock) = try makePlayer(mode: .bounce)
        #expect(timeline(player, clock, milliseconds: 1100) == [[0, 0], [100, 1], [300, 2], [600, 1], [800, 0], [900, 1], [1100, 2]])
    }

    @Test func reversedBounceModeStartsAtTheLastFrameAndTurns() throws {
        let (player, clock) = try makePlayer(mode: .reversedBounce)
        #expect(timeline(player, clock, milliseconds: 1100) == [[0, 2], [300, 1], [500, 0], [600, 1], [800, 2], [1100, 1]])
    }

    @Test func stopsOnTheLastFrameAfterItsLoopCount() throws {
        let (player, clock) = try makePlayer(loops: 2)
        #expect(timeline(player, clock, milliseconds: 2000) == [[0, 0], [100, 1], [300, 2], [600, 0], [700, 1], [900, 2]])
        #expect(player.isFinished)
        #expect(!player.isPlaying)
        #expect(player.currentLoop == 2)
        #expect(player.currentFrameIndex == 2)
    }

    @Test func usesTheImageLoopCountUnlessOverridden() throws {
        let (player, clock) = try makePlayer(SyntheticFrameSource(durations: [0.1, 0.2, 0.3], loopCount: 1))
        #expect(player.loopCount == 1)
        #expect(timeline(player, clock, milliseconds: 1000) == [[0, 0], [100, 1], [300, 2]])
        #expect(player.isFinished)
        // Playing again after finishing starts over.
        player.play()
        #expect(player.currentFrameIndex == 0)
        #expect(player.isPlaying)
    }

    @Test func bounceLoopEndsBackOnTheFirstFrame() throws {
        let (player, clock) = try makePlayer(mode: .bounce, loops: 1)
        #expect(timeline(player, clock, milliseconds: 1500) == [[0, 0], [100, 1], [300, 2], [600, 1], [800, 0]])
        #expect(player.isFinished)
        #expect(player.currentLoop == 1)
    }

    @Test func doubleRateHalvesTheTimes() throws {
        let (player, clock) = try makePlayer(rate: 2)
        #expect(timeline(player, clock, milliseconds: 600) == [[0, 0], [50, 1], [150, 2], [300, 0], [350, 1], [450, 2], [600, 0]])
    }

    @Test func rateOfZeroOrLessHoldsTheFrame() throws {
        for rate in [0.0, -1.0] {
            let (player, clock) = try makePlayer(rate: rate)
            #expect(timeline(player, clock, milliseconds: 1000) == [[0, 0]])
            player.playbackRate = 1
            clock.advance(by: .milliseconds(100))
            #expect(player.tick())
            #expect(player.currentFrameIndex == 1)
        }
    }

    @Test func seekShowsTheFrameWithItsFullDurationAhead() throws {
        let (player, clock) = try makePlayer()
        _ = timeline(player, clock, milliseconds: 50)
        player.seek(toFrame: 2, loop: 3)
        player.waitUntilIdle()
        player.tick()
        #expect(player.currentFrameIndex == 2)
        #expect(player.currentLoop == 3)
        clock.advance(by: .milliseconds(290))
        player.tick()
        #expect(player.currentFrameIndex == 2)
        clock.advance(by: .milliseconds(10))
        player.tick()
        #expect(player.currentFrameIndex == 0)
        #expect(player.currentLoop == 4)
    }

    @Test func pauseFreezesTimeAndPlayResumes() throws {
        let (player, clock) = try makePlayer()
        _ = timeline(player, clock, milliseconds: 50)
        player.pause()
        clock.advance(by: .seconds(5))
        player.tick()
        #expect(player.currentFrameIndex == 0)
        player.play()
        clock.advance(by: .milliseconds(40))
        player.tick()
        #expect(player.currentFrameIndex == 0)
        clock.advance(by: .milliseconds(10))
        player.tick()
        #expect(player.currentFrameIndex == 1)
    }

    @Test func stopReturnsToTheStartAndEmptiesTheBuffer() throws {
        let (player, clock) = try makePlayer()
        _ = timeline(player, clock, milliseconds: 700)
        #expect(player.currentFrameIndex == 1)
        #expect(player.currentLoop == 1)
        player.stop()
        #expect(!player.isPlaying)
        #expect(player.currentFrameIndex == 0)
        #expect(player.currentLoop == 0)
        #expect(player.bufferedFrameCount == 0)
        clock.advance(by: .seconds(1))
        player.tick()
        #expect(player.currentFrameIndex == 0)
    }

    /// Playing in reverse, the mode's first frame is the last one, which the image does
    /// not hold: a new player and a stopped one decode it at once, so that `play()` (or
    /// the next tick) shows it. Neither decoded anything until a tick came, and a display
    /// link usually stops ticking a stopped player.
    @Test func aReversePlayerHasItsFirstFrameReadyAtOnceAndAfterStop() throws {
        let (player, clock) = try makePlayer(mode: .reverse)
        player.waitUntilIdle()
        player.play()
        #expect(player.currentFrameIndex == 2)
        _ = timeline(player, clock, milliseconds: 350)
        #expect(player.currentFrameIndex == 1)
        player.stop()
        player.waitUntilIdle()
        player.tick()
        #expect(player.currentFrameIndex == 2)
    }

    /// A damaged frame in a sequential format fails every frame after it (each decode
    /// rewinds to the start and fails there again). Each is decoded once; the buffer then
    /// goes idle and playback stops on the error. Remembering only the last failure made
    /// the two newest failures alternate for good, decoding from the start each time, even
    /// after the player was gone.
    @Test func damagedFramesAreDecodedOnceAndStopPlayback() async throws {
        let source = SyntheticFrameSource(durations: Array(repeating: 0.01, count: 10), failingFrom: 5)
        let (player, clock) = try makePlayer(source)
        player.play()
        let idle = Atomic(false)
        Thread { player.waitUntilIdle(); idle.store(true, ordering: .releasing) }.start()
        let deadline = ContinuousClock.now + TestTime.prompt
        while !idle.load(ordering: .acquiring), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let wentIdle = idle.load(ordering: .acquiring)
        try #require(wentIdle, "the buffer kept decoding the damaged frames")
        #expect(source.decodedIndices.filter { $0 >= 5 }.sorted() == [5, 6, 7, 8, 9])
        for _ in 0..<10 {
            clock.advance(by: .milliseconds(10))
            player.tick()
        }
        #expect(player.currentFrameIndex == 4)
        #expect(player.error != nil)
        #expect(!player.isPlaying)
    }

    /// A rate of any size is a speed: an infinite one, or one whose scaled time does not fit
    /// in 64 bits, trapped converting it back to nanoseconds (two ticks at one instant at an
    /// infinite rate made `0 × ∞`, not a number).
    @Test func anyPositiveRateIsPlayedWithoutTrapping() throws {
        for rate in [Double.infinity, 1e30, .greatestFiniteMagnitude] {
            let (player, clock) = try makePlayer(rate: rate)
            player.play()
            player.tick()
            player.tick()
            clock.advance(by: .seconds(1))
            player.waitUntilIdle()
            #expect(player.tick())
            #expect(player.currentFrameIndex == 1)
        }
    }

    /// Ticks within one frame's time move nothing, and leave the look-ahead window as it
    /// is: rebuilding it every tick cost O(frames) on the display link's thread for an
    /// animation of many tiny frames, whose window holds them all.
    @Test func ticksThatMoveNothingLeaveTheWindowAlone() throws {
        let (player, clock) = try makePlayer(SyntheticFrameSource(durations: Array(repeating: 0.1, count: 2_000), size: 1))
        player.play()
        player.tick()
        let updates = player.buffer.windowUpdates
        for _ in 0..<9 {
            clock.advance(by: .milliseconds(10))
            player.tick()
        }
        #expect(player.buffer.windowUpdates == updates)
        player.waitUntilIdle()
        clock.advance(by: .milliseconds(10))
        #expect(player.tick())
        #expect(player.buffer.windowUpdates == updates + 1, "a frame's step sets the window once")
    }

    @Test func waitsForALateFrameInsteadOfSkippingIt() throws {
        let source = SyntheticFrameSource(durations: [0.1, 0.2, 0.3], gatedFrom: 1)
        let (player, clock) = try makePlayer(source)
        player.play()
        for _ in 0..<100 {
            clock.advance(by: .milliseconds(10))
            #expect(!player.tick())
        }
        #expect(player.currentFrameIndex == 0)
        source.release()
        player.waitUntilIdle()
        #expect(player.tick())
        #expect(player.currentFrameIndex == 1)
        // Frame 1 gets its whole duration from when it appeared.
        clock.advance(by: .milliseconds(190))
        player.tick()
        #expect(player.currentFrameIndex == 1)
        clock.advance(by: .milliseconds(10))
        player.tick()
        player.waitUntilIdle()
        player.tick()
        #expect(player.currentFrameIndex == 2)
        #expect(source.decodedIndices.prefix(2) == [0, 1])
    }

    @Test(arguments: [1, 256 * 2, 256 * 3, 256 * 5 + 100])
    func neverHoldsMoreFramesThanTheBufferAllows(bufferSize: Int) throws {
        // 16 frames of 8×8 RGBA (256 bytes each).
        let source = SyntheticFrameSource(durations: Array(repeating: 0.05, count: 16))
        let (player, clock) = try makePlayer(source, loops: 2, bufferSize: bufferSize)
        let capacity = max(1, bufferSize / 256)
        #expect(player.maxBufferCount == capacity)
        var largest = 0
        var shown: [Int] = []
        player.play()
        player.waitUntilIdle()
        for _ in 0..<400 where !player.isFinished {
            clock.advance(by: .milliseconds(10))
            if player.tick(), let index = player.currentFrameIndex { shown.append(index) }
            player.waitUntilIdle()
            #expect(player.bufferedFrameCount <= capacity)
            #expect(player.bufferedBytes <= capacity * 512)
            largest = max(largest, player.bufferedFrameCount)
        }
        #expect(largest == capacity)
        #expect(shown == Array(1..<16) + Array(0..<16))
        #expect(player.isFinished)
    }

    @Test func automaticBufferSizeComesFromAvailableMemory() throws {
        let (player, _) = try makePlayer(bufferSize: 0)
        // Three 256-byte frames always fit in a fifth of the available memory.
        #expect(player.maxBufferCount == 3)
        let meminfo = "MemTotal:       16318496 kB\nMemFree:         1270784 kB\nMemAvailable:    9261572 kB\n"
        #expect(AnimatedImagePlayer.Configuration.SystemMemory.parseAvailable(meminfo) == 9_261_572 * 1024)
        #expect(AnimatedImagePlayer.Configuration.SystemMemory.parseAvailable("MemTotal: 5 kB\n") == nil)
        #expect(try #require(AnimatedImagePlayer.Configuration.SystemMemory.availableBytes()) > 0)
    }

    /// A review's finding: the automatic size ignored the image's pixel limit, so a small
    /// file of many large frames that ``AnimatedImage/preloadAllFrames()`` refuses got
    /// gigabytes of look-ahead.
    @Test func automaticBufferSizeStaysWithinThePixelLimit() throws {
        // 16 frames of 8×8; the limit holds 3 of them.
        let image = try AnimatedImage(coder: SyntheticFrameSource(durations: Array(repeating: 0.1, count: 16)), pixelLimit: 3 * 64)
        let player = AnimatedImagePlayer(image: image, clock: ManualClock())
        #expect(player.maxBufferCount == 3)
    }

    /// A review's finding: `/proc/meminfo` shows the host's memory inside a container, so
    /// the automatic size counted memory the container may not use.
    @Test func theMemoryCgroupsLimitCounts() {
        typealias Memory = AnimatedImagePlayer.Configuration.SystemMemory
        #expect(Memory.available(limit: "1073741824\n", usage: "805306368\n") == 256 << 20)
        #expect(Memory.available(limit: "max\n", usage: "5\n") == nil, "v2: no limit")
        #expect(Memory.available(limit: "9223372036854771712\n", usage: "5\n") == nil, "v1: no limit")
        #expect(Memory.available(limit: "100", usage: "200") == 0, "over the limit: nothing left")
        #expect(Memory.available(limit: "", usage: "1") == nil)
        // The page cache the kernel drops first is not counted as used (a review's
        // finding: a container that had read its limit's worth of files had no budget).
        #expect(Memory.available(limit: "1073741824", usage: "1073741824", stat: "anon 5\ninactive_file 536870912\n") == 512 << 20)
        #expect(Memory.available(limit: "1073741824", usage: "1073741824", stat: "total_inactive_file 268435456\n") == 256 << 20)
        // The process's group and each one above it (a slice may hold the limit).
        let v2 = Memory.cgroupFiles(membership: "0::/system.slice/app.service\n", root: "/cg")
        #expect(v2.map(\.limit) == ["/cg/system.slice/app.service/memory.max", "/cg/system.slice/memory.max", "/cg/memory.max", "/cg/memory/memory.limit_in_bytes"])
        #expect(v2.first?.usage == "/cg/system.slice/app.service/memory.current")
        #expect(v2.first?.stat == "/cg/system.slice/app.service/memory.stat")
        let v1 = Memory.cgroupFiles(membership: "5:cpu,cpuacct:/x\n4:memory:/docker/abc\n0::/\n", root: "/cg")
        #expect(v1.map(\.limit) == [
            "/cg/memory/docker/abc/memory.limit_in_bytes", "/cg/memory/docker/memory.limit_in_bytes", "/cg/memory/memory.limit_in_bytes", "/cg/memory.max",
        ])
        #expect(Memory.cgroupFiles(membership: "0::/../../etc\n", root: "/cg").count == 2, "no path out of the hierarchy")
    }

    /// A review's finding: the window stopped at the first frame it had seen, which in a
    /// bounce is the frame just shown, so the frames needed on the way back were dropped at
    /// each turn and decoded again on every loop, even with room for them all.
    @Test(arguments: [Mode.bounce, .reversedBounce])
    func aBounceWithRoomForEveryFrameDecodesEachOnce(_ mode: Mode) throws {
        let source = SyntheticFrameSource(durations: Array(repeating: 0.1, count: 6))
        let (player, clock) = try makePlayer(source, mode: mode)
        // Two loops: 0 1 2 3 4 5 4 3 2 1 | 0 1 ... (10 steps of 100 ms each).
        _ = timeline(player, clock, milliseconds: 2000)
        #expect(player.currentLoop == 2)
        #expect(source.decodedIndices.sorted() == Array(0..<6), "decoded: \(source.decodedIndices)")
    }

    /// A review's finding: `play()` while playing restarted the time count, so an owner
    /// that calls it before each tick (to be sure the animation runs) never moved on.
    @Test func playWhilePlayingKeepsTheTimeSinceTheLastTick() throws {
        let (player, clock) = try makePlayer()
        player.play()
        player.waitUntilIdle()
        player.tick()
        for _ in 0..<10 {
            clock.advance(by: .milliseconds(10))
            player.play()
            player.tick()
            player.waitUntilIdle()
        }
        #expect(player.currentFrameIndex == 1)
    }

    /// A file may claim any frame duration (a JPEG XL frame up to about 4e12 s), past what
    /// nanoseconds in an Int64 count (9.2e9 s): the player shows such a frame for a year
    /// instead of trapping.
    @Test func anEndlessFrameDurationIsShownForAYear() throws {
        let image = try AnimatedImage(coder: SyntheticFrameSource(durations: [4.3e10, .infinity, 0.1]))
        let clock = ManualClock()
        let player = AnimatedImagePlayer(image: image, clock: clock)
        player.play()
        clock.advance(by: .seconds(3600))
        player.tick()
        #expect(player.currentFrameIndex == 0)
    }

    @Test func playsAPreloadedImageWithoutDecoding() throws {
        let source = SyntheticFrameSource(durations: [0.1, 0.2, 0.3])
        let image = try AnimatedImage(coder: source)
        try image.preloadAllFrames()
        let decodes = source.decodedIndices.count
        let clock = ManualClock()
        let player = AnimatedImagePlayer(image: image, clock: clock)
        player.play()
        for _ in 0..<60 {
            clock.advance(by: .milliseconds(10))
            player.tick()
        }
        #expect(player.currentFrameIndex == 0)
        #expect(player.currentLoop == 1)
        #expect(source.decodedIndices.count == decodes)
        #expect(player.bufferedFrameCount == 0)
    }
}
