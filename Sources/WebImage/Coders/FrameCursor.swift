/// One format's forward-only decoding state: the composited canvas after the last frame
/// and where the next frame's data starts.
///
/// GIF, APNG and animated WebP build frame N on top of frame N-1, so a frame can only be
/// made by decoding forward from a state the cursor holds. ``SequentialFrameDecoder``
/// drives a cursor and decides when to rewind. Not thread-safe; always used under a lock.
protocol FrameCursor {
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
