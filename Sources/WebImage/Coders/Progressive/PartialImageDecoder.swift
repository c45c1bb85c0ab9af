import Foundation

/// Makes partial images from the bytes of a download still in progress
/// (``DownloadRequestOptions/progressiveLoad``).
///
/// The downloader creates one instance per download (through
/// ``Downloader/Configuration/partialImageDecoder``) and calls it serially, each time with every
/// byte received so far, so an implementation may keep incremental state between calls.
/// It runs on the download's task, never on an event loop.
///
/// ```swift
/// var config = Downloader.Configuration()
/// config.partialImageDecoder = { PrefixPartialImageDecoder(coder: CodersManager.shared) }
/// ```
public protocol PartialImageDecoder: Sendable {
    /// A partial image of `data` (the body so far), or `nil` when none can be made yet.
    func partialImage(from data: Data, options: ImageCoderOptions) -> Image?
}

/// A ``PartialImageDecoder`` that decodes the prefix received so far with an ordinary
/// coder and marks the result incremental.
///
/// This works for formats whose decoder gives a partial image for truncated data (JPEG,
/// whose libjpeg decoder fills the missing rows with grey); for the others the decode
/// fails and no partial image is delivered. It re-decodes the whole prefix each time, so
/// its cost grows with the image; a true incremental coder does better. Thread-safe: it
/// holds no state.
///
/// ```swift
/// let decoder = PrefixPartialImageDecoder(coder: JPEGCoder())
/// let partial = decoder.partialImage(from: firstHalf, options: ImageCoderOptions())
/// ```
public struct PrefixPartialImageDecoder: PartialImageDecoder {
    /// The coder that decodes each prefix.
    public let coder: any ImageCoder

    /// Creates a decoder that uses `coder`.
    public init(coder: any ImageCoder) {
        self.coder = coder
    }

    public func partialImage(from data: Data, options: ImageCoderOptions) -> Image? {
        var options = options
        // Partial frames of an animation are not worth showing; the final decode has them all.
        options.decodeFirstFrameOnly = true
        guard coder.canDecode(data), let image = try? coder.decode(data, options: options) else { return nil }
        return image.markedIncremental()
    }
}
