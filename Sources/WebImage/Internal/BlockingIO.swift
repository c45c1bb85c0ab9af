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

    /// A serial queue whose work runs on the blocking-I/O queue's threads: for a sequence
    /// of blocking steps that must run in order (the writes of one streamed download),
    /// started from a thread that must not wait for them (an event loop).
    static func makeSerialLane(label: String) -> DispatchQueue {
        DispatchQueue(label: label, target: queue)
    }

    /// Starts `work` on the blocking-I/O queue and returns at once, for a caller that must
    /// not wait (an event loop handing a partial decode off); the work reports back itself.
    static func start(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
