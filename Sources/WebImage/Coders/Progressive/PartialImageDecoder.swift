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

/// A ``PartialImageDecoder`` over the coders' true incremental decoders
/// (``CodersManager/progressiveDecoder(for:)``): JPEG scans, PNG rows, GIF frames, WebP
/// rows, each decoded once as the bytes arrive instead of re-decoding the whole prefix.
///
/// The downloader makes one per progressive download (it is the default
/// ``Downloader/Configuration/partialImageDecoder``). The format's decoder is chosen from the first
/// bytes that identify it; a format without an incremental decoder gives no partial
/// images. Thread-safe: the decoder is created under a lock and serialises its own calls.
///
/// ```swift
/// var config = Downloader.Configuration()
/// config.partialImageDecoder = { ProgressivePartialImageDecoder(coders: .shared) }
/// ```
public final class ProgressivePartialImageDecoder: PartialImageDecoder {
    private let coders: CodersManager
    private let decoder = LockedValue<(any ProgressiveImageCoder)?>(nil)

    /// Creates a decoder that asks `coders` for the format's incremental decoder.
    public init(coders: CodersManager = .shared) {
        self.coders = coders
    }

    public func partialImage(from data: Data, options: ImageCoderOptions) -> Image? {
        let coders = coders
        let chosen = decoder.withLock { decoder in
            if decoder == nil { decoder = coders.progressiveDecoder(for: data) }
            return decoder
        }
        guard let chosen else { return nil }
        chosen.update(data, isFinal: false)
        return try? chosen.currentImage(options: options)
    }
}
