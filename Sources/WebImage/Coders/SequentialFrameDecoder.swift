import Foundation

/// Random access to the frames of a format that composites each frame on the last.
///
/// Holds one ``FrameCursor`` and the last frame it produced. Asking for the next frame
/// costs one frame's decode; asking for a later one decodes the frames between; asking for
/// an earlier one rewinds to the start and decodes forward again. The choice (rather than
/// keeping periodic keyframes) keeps the memory fixed at one canvas plus one finished frame
/// whatever the animation's length; a player moves forward, and the player's own buffer
/// serves the reverse and bounce modes' backward steps when it can hold the frames.
///
/// It also holds what the frame source reports without decoding (the file and its
/// ``AnimatedImageProperties``), so a ``SequentialFrameSource`` is this one value and its
/// format's cursor. The cursor is held as `any FrameCursor`, so each source keeps its
/// cursor type private.
///
/// Thread-safe: the cursor lives behind a `LockedValue`, so a prefetch task and a caller asking
/// at once are served one after the other. The lock is held while a frame decodes, because
/// the cursor's state is the decode's input; callers that must not wait (a display-link
/// tick) ask through ``AnimatedImagePlayer``, whose prefetch runs off their thread.
final class SequentialFrameDecoder: Sendable {
    private struct State {
        var cursor: any FrameCursor
        /// The last frame produced, kept so that asking again for the same frame is free.
        var last: (index: Int, pixels: PixelBuffer)?
        /// Set when a decode failed part-way, leaving the cursor's canvas undefined.
        var needsRewind = false
    }

    private let state: LockedValue<State>
    /// The original file (``AnimatedImageCoder/animatedImageData``).
    let data: Data
    /// What is known without decoding; its frame count is the number of frames a caller
    /// may ask for.
    let properties: AnimatedImageProperties

    /// Wraps `cursor`, which must stand before frame 0 of `data`, whose structure
    /// `properties` describes.
    init(data: Data, properties: AnimatedImageProperties, cursor: sending some FrameCursor) {
        state = LockedValue(State(cursor: cursor))
        self.data = data
        self.properties = properties
    }

    /// Frame `index`, decoded forward from the nearest state held (see the type's note).
    func frame(at index: Int) throws -> PixelBuffer {
        let frameCount = properties.frameCount
        guard index >= 0, index < frameCount else {
            throw WebImageError.badImageData("frame \(index) is out of range (0..<\(frameCount))")
        }
        return try state.withLock { state in
            if let last = state.last, last.index == index { return last.pixels }
            if state.needsRewind || index < state.cursor.nextIndex {
                if try !state.cursor.jump(to: index) { try state.cursor.rewind() }
                state.needsRewind = false
            } else if index > state.cursor.nextIndex {
                _ = try state.cursor.jump(to: index)
            }
            do {
                var pixels: PixelBuffer?
                while state.cursor.nextIndex <= index {
                    pixels = try state.cursor.decodeNext()
                }
                guard let pixels else { throw WebImageError.badImageData("frame \(index) was not decoded") }
                state.last = (index, pixels)
                return pixels
            } catch {
                state.needsRewind = true
                state.last = nil
                throw error
            }
        }
    }
}

/// One format's forward-only decoding state: the composited canvas after the last frame
/// and where the next frame's data starts.
///
/// GIF, APNG and animated WebP build frame N on top of frame N-1, so a frame can only be
/// made by decoding forward from a state the cursor holds. ``SequentialFrameDecoder``
/// drives a cursor and decides when to rewind. Not thread-safe; always used under a lock.
/// `SendableMetatype` rules out an isolated conformance, so a cursor held as
/// `any FrameCursor` can be handed to that lock and used from any thread.
protocol FrameCursor: SendableMetatype {
    /// The index the next ``decodeNext()`` produces.
    var nextIndex: Int { get }
    /// Goes back to the state before frame 0.
    mutating func rewind() throws
    /// Decodes, composites and finishes (resizes, orients) frame ``nextIndex``, then
    /// moves past it.
    mutating func decodeNext() throws -> PixelBuffer
    /// Moves the cursor so that the next frame decoded is `index` when the format can get
    /// there without decoding the frames between (AVIF's keyframes); returns whether it did.
    /// The default cannot.
    mutating func jump(to index: Int) throws -> Bool
}

extension FrameCursor {
    mutating func jump(to index: Int) throws -> Bool { false }
}
