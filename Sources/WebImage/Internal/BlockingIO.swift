import Dispatch

/// Runs blocking work (file I/O, decoding) on a Dispatch queue instead of the Swift
/// concurrency pool, whose few threads must never wait on the disk.
///
/// Thread-safe. The work runs exactly once and its result is delivered exactly once; it is
/// not interrupted when the awaiting task is cancelled (callers decide what to do with a
/// result nobody wants).
enum BlockingIO {
    private static let queue = DispatchQueue(label: "swift-web-image.blocking-io", qos: .utility, attributes: .concurrent)

    /// Runs `work` on the blocking-I/O queue and returns its result.
    static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(E) -> T in try work() })
            }
        }
        return try result.get()
    }
}
