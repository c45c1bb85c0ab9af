import Dispatch
import Foundation

/// Plays an ``AnimatedImage``: which frame to show now, with a bounded look-ahead buffer
/// decoded off the caller's thread.
///
/// SDWebImage's `SDAnimatedImagePlayer` without a screen: the owner calls ``tick()`` from
/// its display link (or any timer), and the player reads its ``AnimationClock``, moves to the
/// next frame when the current one's duration has passed, and reports ``currentFrame``.
/// It follows SDWebImage's rule of never skipping a frame: a tick moves at most one frame,
/// and when the next frame is not decoded yet the player keeps showing the current one and
/// stops counting time until it arrives, so slow decoding slows the animation instead of
/// making it jump. Loops are counted per ``PlaybackMode`` (see there); after the last loop
/// the player stops on the final frame and ``isFinished`` is set. The buffer holds at most
/// ``maxBufferCount`` frames (from ``Configuration/maxBufferSize``).
///
/// Thread-safe: state behind a `LockedValue`. ``tick()`` never decodes; decodes run on the
/// library's queue for blocking work, off Swift's cooperative pool.
///
/// ```swift
/// let player = AnimatedImagePlayer(image: try AnimatedImage(data: gif))
/// player.play()
/// displayLink.onFrame { if player.tick(), let frame = player.currentFrame { show(frame) } }
/// ```
public final class AnimatedImagePlayer: Sendable {
    private struct Position: Equatable {
        var index: Int
        var forward: Bool
    }

    private struct State {
        var mode: PlaybackMode
        var rate: Double
        var loopLimit: Int
        var position: Position
        /// `position.index` is waiting to be shown (its frame was not decoded yet).
        var pending = true
        var shownIndex: Int?
        var shownFrame: PixelBuffer?
        var isPlaying = false
        var isFinished = false
        var finishOnShow = false
        var elapsed: Int64 = 0
        var lastTick: Int64?
        var loops = 0
        var error: WebImageError?
        /// What the buffer's window was last made from; `nil` when it must be made again.
        var windowSource: WindowSource?
    }

    /// What the look-ahead window depends on: while it stays the same, so does the window.
    private struct WindowSource: Equatable {
        var position: Position
        var mode: PlaybackMode
        var isFinished: Bool
    }

    /// The animation played.
    public let image: AnimatedImage
    private let clock: any AnimationClock
    let buffer: AnimationFrameBuffer
    /// Frame durations in whole nanoseconds, so time adds up exactly.
    private let durations: [Int64]
    /// The longest a frame is shown, in seconds: a year.
    static let longestFrameDuration: Double = 365 * 24 * 3600
    private let state: LockedValue<State>

    /// A stopped player on the first frame of `mode`. Decodes run on the library's queue
    /// for blocking work, as every decode and file read of the library does.
    public init(
        image: AnimatedImage,
        clock: any AnimationClock = SystemAnimationClock(),
        configuration: Configuration = Configuration()
    ) {
        self.image = image
        self.clock = clock
        let bytesLimit = configuration.maxBufferSize > 0 ? configuration.maxBufferSize : Self.automaticBufferSize(for: image)
        buffer = AnimationFrameBuffer(
            image: image, capacity: bytesLimit / max(1, image.properties.bytesPerFrame))
        // A file may claim any duration (a JPEG XL frame up to about 4e12 s): more than a year
        // is shown as a year, within what nanoseconds in an Int64 can count (292 years).
        durations = image.durations.map { Int64((min(max(0, $0), Self.longestFrameDuration) * 1e9).rounded()) }
        let start = Self.start(of: configuration.playbackMode, frameCount: image.frameCount)
        var initial = State(mode: configuration.playbackMode, rate: configuration.playbackRate,
                            loopLimit: max(0, configuration.loopCount ?? image.loopCount), position: start)
        if let frame = buffer.frame(at: start.index) {
            initial.shownIndex = start.index
            initial.shownFrame = frame
            initial.pending = false
        } else {
            // The mode's first frame (the last, playing in reverse) is decoded now, so that
            // the first tick or `play()` can show it.
            buffer.update(window: [start.index])
        }
        state = LockedValue(initial)
    }

    // A decode running or queued holds the buffer, not the player: emptying the window
    // stops the buffer's decodes at the next step, instead of filling it for nobody.
    deinit {
        buffer.removeAll()
    }

    /// A stopped player, as ``init(image:clock:configuration:)``: the queue is no longer
    /// used, since decodes run on the library's queue for blocking work. Kept for one
    /// release so that calls passing a queue still compile.
    @available(*, deprecated, message: "decodes run on the library's blocking-work queue; drop the decodeQueue argument")
    public convenience init(
        image: AnimatedImage,
        clock: any AnimationClock = SystemAnimationClock(),
        configuration: Configuration = Configuration(),
        decodeQueue: DispatchQueue
    ) {
        self.init(image: image, clock: clock, configuration: configuration)
    }

    // MARK: State

    /// The frame to show now; `nil` until the first frame is decoded.
    public var currentFrame: PixelBuffer? { state.withLock { $0.shownFrame } }
    /// The index of ``currentFrame``.
    public var currentFrameIndex: Int? { state.withLock { $0.shownIndex } }
    /// Loops completed since the start (or the last ``stop()``, or a seek that set it).
    public var currentLoop: Int { state.withLock { $0.loops } }
    /// Whether ticks advance the animation.
    public var isPlaying: Bool { state.withLock { $0.isPlaying } }
    /// Whether the loop count was reached; ``play()`` then starts over.
    public var isFinished: Bool { state.withLock { $0.isFinished } }
    /// The decode failure that stopped playback, if one did. A frame that failed is not
    /// decoded again until ``stop()``, which also clears this.
    public var error: WebImageError? { state.withLock { $0.error } }
    /// Loops to play (0 = forever).
    public var loopCount: Int { state.withLock { $0.loopLimit } }
    /// The most frames the look-ahead buffer holds.
    public var maxBufferCount: Int { buffer.capacity }
    /// Frames in the look-ahead buffer now (frames the image holds itself are not counted).
    public var bufferedFrameCount: Int { buffer.count }
    /// Bytes of pixels in the look-ahead buffer now.
    public var bufferedBytes: Int { buffer.bytes }

    /// Speed factor; 0 or less holds the current frame until set positive again.
    public var playbackRate: Double {
        get { state.withLock { $0.rate } }
        set { state.withLock { $0.rate = newValue } }
    }

    /// The play order; changing it keeps the current frame and changes what comes next.
    public var playbackMode: PlaybackMode {
        get { state.withLock { $0.mode } }
        set {
            state.withLock { state in
                state.mode = newValue
                state.position.forward = Self.direction(at: state.position.index, mode: newValue,
                                                        frameCount: image.frameCount, current: state.position.forward)
                refreshWindow(&state)
            }
        }
    }

    // MARK: Control

    /// Starts or resumes playing from the current frame (from the start after finishing).
    /// Time spent paused is not counted. Calling it while playing changes nothing, so an
    /// owner may call it whenever it wants the animation running (on each redraw, say)
    /// without losing the time since the last tick, as SDAnimatedImagePlayer's
    /// `startPlaying` does.
    public func play() {
        let now = nanoseconds(clock.now)
        state.withLock { state in
            if state.isFinished { reset(&state) }
            if !state.isPlaying || state.lastTick == nil { state.lastTick = now }
            state.isPlaying = true
            _ = showPendingIfReady(&state)
            refreshWindow(&state)
        }
    }

    /// Stops advancing, keeping the current frame and position.
    public func pause() {
        state.withLock { state in
            state.isPlaying = false
            state.lastTick = nil
        }
    }

    /// Stops and goes back to the first frame of the mode, loop 0, emptying the buffer.
    /// That frame is decoded at once (when the image does not hold it) and shown from the
    /// next ``tick()`` or ``play()``.
    public func stop() {
        state.withLock { state in
            state.isPlaying = false
            state.lastTick = nil
            buffer.removeAll()
            state.windowSource = nil
            reset(&state)
            if state.pending { buffer.update(window: [state.position.index]) }
        }
    }

    /// Moves to frame `index` (shown at once when decoded, else as soon as it is), with its
    /// full duration ahead, and sets the completed loop count to `loop` when given.
    /// An index out of range is ignored.
    public func seek(toFrame index: Int, loop: Int? = nil) {
        guard index >= 0, index < image.frameCount else { return }
        state.withLock { state in
            state.position = Position(index: index, forward: Self.direction(
                at: index, mode: state.mode, frameCount: image.frameCount, current: state.position.forward))
            state.pending = true
            state.elapsed = 0
            state.isFinished = false
            state.finishOnShow = false
            if let loop { state.loops = max(0, loop) }
            _ = showPendingIfReady(&state)
            refreshWindow(&state)
        }
    }

    /// Reads the clock and moves at most one frame on. Returns whether ``currentFrame``
    /// changed. Never blocks on decoding.
    @discardableResult
    public func tick() -> Bool {
        let now = nanoseconds(clock.now)
        return state.withLock { state in
            let delta = max(0, now - (state.lastTick ?? now))
            // A tick that read the clock before another (each reads it outside the lock)
            // must not move the last tick back, which would count that time twice.
            state.lastTick = max(now, state.lastTick ?? now)
            var changed = false
            if state.pending {
                changed = showPendingIfReady(&state)
            } else if state.isPlaying, state.rate > 0, image.frameCount > 1 {
                state.elapsed += state.rate == 1 ? delta : Self.scaled(delta, by: state.rate)
                let duration = durations[state.position.index]
                if state.elapsed >= duration {
                    changed = advance(&state, past: duration)
                }
            }
            refreshWindow(&state)
            return changed
        }
    }

    /// Blocks until the buffer's decodes are done; for tests and off-screen tools.
    func waitUntilIdle() {
        buffer.waitUntilIdle()
    }

    // MARK: Stepping

    private func advance(_ state: inout State, past duration: Int64) -> Bool {
        let step = Self.step(from: state.position, frameCount: image.frameCount, mode: state.mode)
        if step.endsLoopBefore {
            state.loops += 1
            if state.loopLimit > 0, state.loops >= state.loopLimit {
                finish(&state)
                return false
            }
        }
        state.elapsed = min(state.elapsed - duration, durations[step.position.index])
        state.position = step.position
        state.pending = true
        if step.endsLoopOnArrival {
            state.loops += 1
            if state.loopLimit > 0, state.loops >= state.loopLimit { state.finishOnShow = true }
        }
        return showPendingIfReady(&state)
    }

    private func showPendingIfReady(_ state: inout State) -> Bool {
        guard state.pending else { return false }
        let index = state.position.index
        guard let frame = buffer.frame(at: index) else {
            if let error = buffer.failure(at: index) {
                state.error = error
                state.isPlaying = false
            }
            return false
        }
        state.shownIndex = index
        state.shownFrame = frame
        state.pending = false
        if state.finishOnShow { finish(&state) }
        return true
    }

    private func finish(_ state: inout State) {
        state.isPlaying = false
        state.isFinished = true
        state.finishOnShow = false
    }

    private func reset(_ state: inout State) {
        state.position = Self.start(of: state.mode, frameCount: image.frameCount)
        state.pending = true
        state.elapsed = 0
        state.loops = 0
        state.isFinished = false
        state.finishOnShow = false
        state.error = nil
        _ = showPendingIfReady(&state)
    }

    /// Keeps the frames the next steps need: the current (or awaited) one and those after
    /// it in play order, up to the buffer's capacity, looking one whole period of the mode
    /// ahead (a bounce comes back over the frames it just showed: stopping at the first
    /// frame seen again dropped them at the turn, and a forward-only format decoded them
    /// all again on every loop). A finished player keeps none. Made
    /// again only when the position, the mode or the end changed: a tick that moves nothing
    /// used to rebuild it, O(frames) on the display link's thread for an animation of many
    /// tiny frames, whose window holds them all.
    private func refreshWindow(_ state: inout State) {
        let source = WindowSource(position: state.position, mode: state.mode, isFinished: state.isFinished)
        guard source != state.windowSource else { return }
        state.windowSource = source
        guard !state.isFinished else { return buffer.update(window: []) }
        var window = [state.position.index]
        // A set beside the list: the window can hold every frame of an animation of tiny
        // frames (100,000 of 1 × 1 fit any buffer), and `contains` on the list made each
        // tick quadratic in that.
        var inWindow: Set<Int> = [state.position.index]
        var position = state.position
        var steps = 0
        let period = Self.period(of: state.mode, frameCount: image.frameCount)
        while window.count < buffer.capacity, steps < period {
            position = Self.step(from: position, frameCount: image.frameCount, mode: state.mode).position
            steps += 1
            if inWindow.insert(position.index).inserted { window.append(position.index) }
        }
        buffer.update(window: window)
    }

    /// Steps after which `mode` is back where it started: every frame once for normal and
    /// reverse; there and back (each inner frame twice) for the bounce modes.
    private static func period(of mode: PlaybackMode, frameCount: Int) -> Int {
        switch mode {
        case .normal, .reverse: frameCount
        case .bounce, .reversedBounce: max(1, 2 * (frameCount - 1))
        }
    }

    private struct Step {
        var position: Position
        /// Taking this step would start a new loop (normal, reverse): the loop ends first.
        var endsLoopBefore = false
        /// Arriving ends a loop (bounce modes end on their first frame).
        var endsLoopOnArrival = false
    }

    private static func step(from position: Position, frameCount: Int, mode: PlaybackMode) -> Step {
        let last = frameCount - 1
        guard last > 0 else { return Step(position: position) }
        switch mode {
        case .normal:
            return position.index < last
                ? Step(position: Position(index: position.index + 1, forward: true))
                : Step(position: Position(index: 0, forward: true), endsLoopBefore: true)
        case .reverse:
            return position.index > 0
                ? Step(position: Position(index: position.index - 1, forward: false))
                : Step(position: Position(index: last, forward: false), endsLoopBefore: true)
        case .bounce, .reversedBounce:
            var next: Position
            if position.forward {
                next = position.index < last ? Position(index: position.index + 1, forward: true) : Position(index: last - 1, forward: false)
            } else {
                next = position.index > 0 ? Position(index: position.index - 1, forward: false) : Position(index: 1, forward: true)
            }
            next.forward = direction(at: next.index, mode: mode, frameCount: frameCount, current: next.forward)
            let home = mode == .bounce ? 0 : last
            return Step(position: next, endsLoopOnArrival: next.index == home)
        }
    }

    private static func start(of mode: PlaybackMode, frameCount: Int) -> Position {
        switch mode {
        case .normal, .bounce: Position(index: 0, forward: true)
        case .reverse, .reversedBounce: Position(index: max(0, frameCount - 1), forward: false)
        }
    }

    /// Which way playback goes from `index`: fixed for normal and reverse; for the bounce
    /// modes it turns at either end and otherwise keeps `current`.
    private static func direction(at index: Int, mode: PlaybackMode, frameCount: Int, current: Bool) -> Bool {
        switch mode {
        case .normal: return true
        case .reverse: return false
        case .bounce, .reversedBounce:
            if index >= frameCount - 1 { return false }
            if index <= 0 { return true }
            return current
        }
    }

    /// `delta` nanoseconds times a positive `rate`, at most 10^18 (30 years): the
    /// conversion back to an integer traps on an infinite or out-of-range value, and
    /// `0 × ∞` (two ticks at one instant at an infinite rate) is not a number.
    private static func scaled(_ delta: Int64, by rate: Double) -> Int64 {
        let scaled = Double(delta) * rate
        guard !scaled.isNaN else { return 0 }
        return Int64(min(scaled, 1e18).rounded())
    }

    private func nanoseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return parts.seconds &* 1_000_000_000 &+ parts.attoseconds / 1_000_000_000
    }
}
