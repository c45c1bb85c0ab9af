import Dispatch
import Foundation

/// Converts a decoder's output to sRGB band by band as the decoder produces it, so the
/// conversion reads rows still in cache instead of a second pass over the whole image, and,
/// for a large image on several cores, runs on another thread while the decoder produces
/// the next band: the conversion then adds about one band's worth to the decode's wall time
/// (its CPU time is unchanged).
///
/// Used by one decode on one thread: ``convert(_:)`` for each finished band (no other
/// code may touch the band afterwards until ``finish()``), then ``finish()``, which must
/// run before the buffer is freed or read, also when the decode fails half-way (`defer`).
///
/// ```swift
/// let bands = ColorBandConverter(transform: transform, pixelCount: width * height)
/// defer { bands.finish() }
/// while decoding { ...; bands.convert(band) }
/// ```
final class ColorBandConverter {
    /// A band of the caller's buffer, handed to a worker thread.
    private struct Band: @unchecked Sendable {
        // @unchecked: the bytes are the caller's pixel buffer, alive until finish() has
        // waited for every worker (the caller's contract, kept by its `defer`), and each
        // band is a disjoint range of rows that the decoder has finished writing and no
        // other code touches until finish(): no two threads ever access the same bytes.
        let pixels: UnsafeMutableBufferPointer<UInt8>
    }

    /// From this many pixels up, with more than one core, bands convert on other threads;
    /// below it a decode is short enough that the hand-offs would cost more than they save.
    static let concurrentPixelCount = 1 << 20

    private let transform: ColorTransform
    /// Set when bands go to other threads: the work not yet finished.
    private let pending: DispatchGroup?

    /// A converter through `transform` for an image of `pixelCount` pixels.
    init(transform: ColorTransform, pixelCount: Int) {
        self.transform = transform
        let concurrent = pixelCount >= Self.concurrentPixelCount && ProcessInfo.processInfo.activeProcessorCount > 1
        pending = concurrent ? DispatchGroup() : nil
    }

    /// Converts `band` (RGBA rows the decoder has finished), now or on another thread.
    func convert(_ band: UnsafeMutableBufferPointer<UInt8>) {
        guard let pending else {
            transform.convert(band)
            return
        }
        let work = Band(pixels: band)
        let transform = transform
        DispatchQueue.global(qos: .userInitiated).async(group: pending) {
            transform.convert(work.pixels)
        }
    }

    /// Waits until every band handed to ``convert(_:)`` is converted.
    func finish() {
        pending?.wait()
    }
}
