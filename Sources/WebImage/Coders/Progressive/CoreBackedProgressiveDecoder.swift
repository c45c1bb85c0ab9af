import Foundation

/// A progressive decoder whose public face is its ``ProgressiveDecoderCore``: the four
/// built-in ones (GIF, JPEG, PNG, WebP) differ only in their private partial-image state,
/// so their ``ProgressiveImageCoder`` methods are these, written once.
protocol CoreBackedProgressiveDecoder: ProgressiveImageCoder {
    /// The bytes, lock and format state that answer every call.
    var core: ProgressiveDecoderCore { get }
}

extension CoreBackedProgressiveDecoder {
    /// The format of the coder that makes the final image.
    public var format: ImageFormat { core.format }

    /// Records the bytes received so far; see ``ProgressiveImageCoder/update(_:isFinal:)``.
    public func update(_ data: Data, isFinal: Bool) {
        core.update(data, isFinal: isFinal)
    }

    /// The best image so far; see ``ProgressiveImageCoder/currentImage(options:)``.
    public func currentImage(options: ImageCoderOptions) throws -> Image? {
        try core.currentImage(options: options)
    }
}
