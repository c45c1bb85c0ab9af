import Foundation

/// A decoder fed with the bytes of one image while they download, which shows the best
/// picture those bytes allow: SDWebImage's `SDProgressiveImageCoder`.
///
/// A download with `progressiveLoad` makes one decoder
/// (``CodersManager/progressiveDecoder(for:)``), hands it the bytes after each chunk with
/// ``update(_:isFinal:)`` and asks ``currentImage(options:)`` whenever it wants to show
/// something. Partial images are marked ``Image/isIncremental``, have the final image's
/// size (thumbnail and scale-down options apply), and show what has not arrived yet as a
/// uniform fill or as the previous, coarser pass — never as garbage. Once the last bytes
/// are in (`isFinal`), the image is exactly what a one-shot decode of all the bytes with
/// the same options gives, because it is one: as in SDWebImage, the finished download is
/// decoded by the format's ordinary coder.
///
/// Thread-safety: conforming types are `Sendable` and guard their state with a lock, so
/// a decoder may be passed between tasks; calls are serialised, and one decoder serves
/// one download.
///
/// ```swift
/// let decoder = CodersManager.shared.progressiveDecoder(for: firstBytes)
/// decoder?.update(bytesSoFar, isFinal: false)
/// let partial = try decoder?.currentImage(options: ImageCoderOptions())
/// ```
public protocol ProgressiveImageCoder: AnyObject, Sendable {
    /// The format this decoder reads.
    var format: ImageFormat { get }

    /// Hands over every byte received so far — all of them from the first, as SDWebImage
    /// does, so each call's data extends the previous call's. Data shorter than before
    /// starts the decode again (a restarted download). `isFinal` says no more bytes will
    /// come. Cheap: decoding happens in ``currentImage(options:)``.
    func update(_ data: Data, isFinal: Bool)

    /// The best image the bytes so far allow: `nil` while nothing is decodable yet; a
    /// partial image (``Image/isIncremental``) before the final update; afterwards the
    /// one-shot decode of all the bytes, which may itself be partial for a truncated file
    /// (as that format's coder documents) or throw. Throws ``WebImageError`` for data that
    /// cannot become an image (a corrupt header, ``WebImageError/imageTooLarge(width:height:limit:)``).
    func currentImage(options: ImageCoderOptions) throws -> Image?
}
