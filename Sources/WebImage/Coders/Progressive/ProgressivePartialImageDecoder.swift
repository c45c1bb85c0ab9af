import Foundation
import Synchronization

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
    private let decoder = Mutex<(any ProgressiveImageCoder)?>(nil)

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
