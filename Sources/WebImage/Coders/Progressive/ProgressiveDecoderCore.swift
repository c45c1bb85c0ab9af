import Foundation

/// The format-specific half of a progressive decoder: whatever it keeps between chunks
/// (a libjpeg or libpng session, the last partial animation) and how it makes a partial
/// image from the bytes so far. ``ProgressiveDecoderCore`` does the rest.
///
/// A fresh value (`init()`) means "nothing decoded yet"; the core replaces the state with
/// a fresh one when a download restarts and once the last bytes are in.
///
/// `SendableMetatype` rules out an isolated conformance, so a state held as
/// `any PartialImageState` can be handed to the core's lock and used from any thread.
protocol PartialImageState: SendableMetatype {
    /// A state that has decoded nothing yet.
    init()

    /// The best partial image `data` (every byte so far) allows, or `nil` while nothing
    /// is decodable yet; throws ``WebImageError`` for data that cannot become an image.
    mutating func partialImage(from data: Data, options: ImageCoderOptions) throws -> Image?
}

extension PartialImageState {
    /// Forgets everything decoded so far. (A fresh value made here rather than inside the
    /// core's lock, where region checking cannot see that it is disconnected.)
    mutating func reset() {
        self = Self()
    }
}

/// The scaffolding the four format progressive decoders share, written once: the bytes so
/// far, the restart rule, the lock, and the one-shot decode by the format's ordinary coder
/// once the last bytes are in (made once per options, so repeated asks cost nothing).
///
/// The format's state is held as `any PartialImageState`, so a decoder can keep its state
/// type private and still hand its core to ``CoreBackedProgressiveDecoder``.
///
/// Thread-safe: all state is behind one lock, and calls on one decoder are serialised by
/// it; one core serves one download.
///
/// ```swift
/// let core = ProgressiveDecoderCore(coder: JPEGCoder(), state: State.self)   // State: PartialImageState
/// core.update(bytesSoFar, isFinal: false)
/// let partial = try core.currentImage(options: ImageCoderOptions())
/// ```
final class ProgressiveDecoderCore: Sendable {
    private struct Locked {
        /// Every byte received so far (the caller's `Data`, shared, not copied).
        var data = Data()
        /// Whether the last update said no more bytes will come.
        var isFinal = false
        /// The one-shot decode of the final bytes, with the options it was made for.
        var finalImage: (options: ImageCoderOptions, image: Image)?
        var state: any PartialImageState
    }

    private let locked: LockedValue<Locked>
    private let coder: any ImageCoder
    /// The format `coder` reads, which is the decoder's ``ProgressiveImageCoder/format``.
    let format: ImageFormat

    /// Creates a core whose partial images come from a fresh `state` and whose final
    /// image is `coder`'s one-shot decode.
    init<Coder: SingleFormatCoder, State: PartialImageState>(coder: Coder, state: State.Type) {
        self.coder = coder
        format = Coder.format
        locked = LockedValue(Locked(state: State()))
    }

    /// Records every byte so far; see ``ProgressiveImageCoder/update(_:isFinal:)``. Data
    /// shorter than before (a restarted download) and the final update start the
    /// format's state afresh.
    func update(_ data: Data, isFinal: Bool) {
        locked.withLock { locked in
            let restarted = data.count < locked.data.count
            locked.data = data
            locked.isFinal = isFinal
            locked.finalImage = nil
            if restarted || isFinal { locked.state.reset() }
        }
    }

    /// The best image so far; see ``ProgressiveImageCoder/currentImage(options:)``.
    func currentImage(options: ImageCoderOptions) throws -> Image? {
        let coder = coder
        return try locked.withLock { locked in
            guard locked.isFinal else { return try locked.state.partialImage(from: locked.data, options: options) }
            if let final = locked.finalImage, final.options == options { return final.image }
            let image = try coder.decode(locked.data, options: options)
            locked.finalImage = (options, image)
            return image
        }
    }
}
