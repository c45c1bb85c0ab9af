import Dispatch

/// A task executor that runs jobs one at a time on its own dispatch queue, outside Swift's
/// cooperative pool.
///
/// ``LoopbackServer`` runs on it so it keeps answering while test bodies fill the pool with
/// CPU-heavy work (encoding a 2000×2000 PNG in a debug build takes seconds on a 2-core
/// machine): otherwise a starved server looks like a stalled origin and the client's idle
/// time-out fires. Thread-safe: the queue is the only state.
final class SerialTaskExecutor: TaskExecutor {
    /// The executor every loopback server shares (its replies are short bursts of I/O).
    static let shared = SerialTaskExecutor()

    private let queue = DispatchQueue(label: "WebImageTests.SerialTaskExecutor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
