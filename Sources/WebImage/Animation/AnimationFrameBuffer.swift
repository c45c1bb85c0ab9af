import Dispatch

/// The player's look-ahead: decoded frames kept for the next steps of playback, at most
/// ``capacity`` of them, filled by decodes that run through `BlockingIO` (off Swift's
/// cooperative pool), never on the caller's thread.
///
/// The player tells the buffer its *window*: the frame it is on (or waiting for) and the
/// ones it will show next, in play order, never more than ``capacity``. Frames outside the
/// window are dropped at once, and a decode that finishes for a frame no longer in the
/// window is discarded, so the buffer never holds more than ``capacity`` frames. One decode
/// runs at a time, in window order, because the formats decode forward cheaply and
/// backward expensively. Frames the ``AnimatedImage`` already holds (poster, preloaded) are
/// served from it and take no room.
///
/// Thread-safe: state behind a `LockedValue`; decode completions take the same lock.
final class AnimationFrameBuffer: Sendable {
    private struct State {
        var frames: [Int: PixelBuffer] = [:]
        var window: [Int] = []
        var decoding: Int?
        /// Frames whose decode failed, kept until ``removeAll()``: a failed frame is not
        /// tried again. Remembering only the last failure made two failing frames in the
        /// window alternate for good (a sequential format rewinds to its start for each).
        var failures: [Int: WebImageError] = [:]
        /// How many times the window was set (for tests: a tick that moves nothing sets none).
        var windowUpdates = 0
    }

    let image: AnimatedImage
    /// The most frames held at once; at least 1.
    let capacity: Int
    private let state = LockedValue(State())
    /// Counts the decodes started and not yet finished, for ``waitUntilIdle()``.
    private let group = DispatchGroup()

    init(image: AnimatedImage, capacity: Int) {
        self.image = image
        self.capacity = max(1, min(capacity, image.frameCount))
    }

    /// The frame if it is decoded (or held by the image); never decodes.
    func frame(at index: Int) -> PixelBuffer? {
        if let held = image.heldFrame(at: index) { return held }
        return state.withLock { $0.frames[index] }
    }

    /// The decode failure for `index`, if its decode failed since the last ``removeAll()``.
    func failure(at index: Int) -> WebImageError? {
        state.withLock { $0.failures[index] }
    }

    /// Sets the frames to keep (at most ``capacity``, in play order), drops the rest, and
    /// starts decoding the first missing one unless a decode is running.
    func update(window: [Int]) {
        let start: Int? = state.withLock { state in
            state.windowUpdates += 1
            state.window = Array(window.prefix(capacity))
            let keep = Set(state.window)
            state.frames = state.frames.filter { keep.contains($0.key) }
            return nextToDecode(&state)
        }
        if let start { decode(start) }
    }

    /// Drops every frame, forgets the window and the failures. A decode running finishes,
    /// and none starts after it.
    func removeAll() {
        state.withLock { state in
            state.frames.removeAll()
            state.window.removeAll()
            state.failures.removeAll()
        }
    }

    /// Frames held now.
    var count: Int { state.withLock { $0.frames.count } }
    /// How many times ``update(window:)`` ran.
    var windowUpdates: Int { state.withLock { $0.windowUpdates } }
    /// Bytes of pixels held now.
    var bytes: Int { state.withLock { $0.frames.values.reduce(0) { $0 + $1.memoryCost } } }

    /// Blocks until no decode is running or queued. For tests and tools that need a
    /// deterministic state; a display-link owner never calls it.
    func waitUntilIdle() {
        group.wait()
    }

    /// Marks and returns the first window frame that is neither held nor being decoded.
    private func nextToDecode(_ state: inout State) -> Int? {
        guard state.decoding == nil else { return nil }
        let missing = state.window.first { index in
            state.frames[index] == nil && image.heldFrame(at: index) == nil && state.failures[index] == nil
        }
        state.decoding = missing
        return missing
    }

    private func decode(_ index: Int) {
        group.enter()
        BlockingIO.start { [self] in
            defer { group.leave() }
            let result: Result<PixelBuffer, WebImageError>
            do {
                result = .success(try image.frame(at: index))
            } catch let error as WebImageError {
                result = .failure(error)
            } catch {
                result = .failure(.badImageData("frame \(index): \(error)"))
            }
            let next: Int? = state.withLock { state in
                state.decoding = nil
                switch result {
                case .success(let pixels):
                    if state.window.contains(index) { state.frames[index] = pixels }
                case .failure(let error):
                    // Like a frame, a failure counts only while its frame is wanted: one
                    // from a decode begun before `removeAll()` must not outlive it.
                    if state.window.contains(index) { state.failures[index] = error }
                }
                return nextToDecode(&state)
            }
            if let next { decode(next) }
        }
    }
}
