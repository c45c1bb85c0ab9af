import Dispatch

/// The one way off Swift's cooperative pool: blocking work (file I/O, full and partial
/// decodes, an animation's look-ahead frames) runs on a Dispatch queue instead, as the
/// pool's few threads must never wait on the disk or spend seconds in a decoder while
/// other tasks (draining other downloads' bodies, answering the HTTP client) wait for a
/// thread.
///
/// Thread-safe. The work runs exactly once and its result is delivered exactly once; it is
/// not interrupted when the awaiting task is cancelled (callers decide what to do with a
/// result nobody wants).
///
/// ```swift
/// let data = try await BlockingIO.run { try Data(contentsOf: fileURL) }
/// BlockingIO.start { cache.removeExpiredData() }  // nobody waits
/// ```
package enum BlockingIO {
    private static let queue = DispatchQueue(label: "swift-web-image.blocking-io", qos: .utility, attributes: .concurrent)

    /// Runs `work` on the blocking-I/O queue and returns its result.
    package static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(E) -> T in try work() })
            }
        }
        return try result.get()
    }

    /// A serial queue of its own for a sequence of short blocking steps that must run in
    /// order (the writes of one streamed download), started from a thread that must not
    /// wait for them (an event loop).
    ///
    /// Not a lane of the shared queue: that queue is concurrent, so on Linux it runs on
    /// Dispatch's pool of about one thread per core, and a write would wait there behind
    /// seconds of decoding. While a streamed download's write waits its socket is not
    /// read, and the HTTP client's idle read timeout runs: the download would fail for a
    /// busy decoder, not a slow server. A serial queue gets its own thread when it has work
    /// (Dispatch "overcommits" serial queues), so the threads are at most one per download
    /// with a write in flight, bounded by the downloader's concurrency.
    static func makeSerialLane(label: String) -> DispatchQueue {
        DispatchQueue(label: label, qos: .utility)
    }

    /// Starts `work` on the blocking-I/O queue and returns at once, for a caller that must
    /// not wait (an event loop handing a partial decode off); the work reports back itself.
    package static func start(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
