import Foundation

/// The partial-image decoder of one download, created only when a caller wants partial
/// images and no decryptor stands between the bytes and the image.
///
/// Its ``ResponseReader`` offers the bytes so far with each progress report. Partial
/// decodes run through ``BlockingIO``, one at a time, while the body keeps streaming:
/// decoding inline would stop reading the socket, and a slow decode would trip the
/// client's idle read timeout. Bytes offered while a decode runs are skipped; a finished
/// decode's images go out with the next progress report, so progress handlers stay serial
/// and never run after the completion. Thread-safe.
///
/// ```swift
/// let partials = PartialImageSource(isWanted: true, makeDecoder: config.partialImageDecoder)
/// partials.offer(bytesSoFar, for: [options])
/// let ready = partials.takeReady()  // with the next progress report
/// ```
final class PartialImageSource: Sendable {
    private struct State {
        var busy = false
        var ready: [(options: ImageCoderOptions, image: Image?)] = []
    }

    private let decoder: (any PartialImageDecoder)?
    private let state = LockedValue(State())

    /// A source that decodes only when `isWanted` (a caller asked for partial images and
    /// no decryptor runs); otherwise it makes no decoder and ignores every offer.
    init(isWanted: Bool, makeDecoder: @Sendable () -> any PartialImageDecoder) {
        decoder = isWanted ? makeDecoder() : nil
    }

    /// Whether a caller wants partial images, so the bytes so far are worth offering.
    var isActive: Bool { decoder != nil }

    /// Starts decoding `data` for each of `options` unless a decode is running.
    func offer(_ data: Data, for options: [ImageCoderOptions]) {
        guard let decoder, !options.isEmpty else { return }
        let start = state.withLock { state in
            guard !state.busy else { return false }
            state.busy = true
            return true
        }
        guard start else { return }
        BlockingIO.start { [self] in
            let images = options.map { ($0, decoder.partialImage(from: data, options: $0)) }
            state.withLock { state in
                state.ready = images
                state.busy = false
            }
        }
    }

    /// The images of the last finished decode, once.
    func takeReady() -> [(options: ImageCoderOptions, image: Image?)] {
        state.withLock { state in
            defer { state.ready = [] }
            return state.ready
        }
    }
}
