/// The disk writes a manager left running after their loads completed, so that
/// ``ImageManager/waitForBackgroundStores()`` can wait for them, and so that the writes and
/// reads of one key keep their order.
///
/// A load without `.waitStoreCache` completes once its image is in memory and writes the
/// disk copy in a detached task (as SDWebImage stores to disk after calling back). Those
/// tasks used to be anonymous: a process that exited, or a test that removed its cache
/// folder, right after its last load could not tell when the writes were done, and a write
/// that came after the folder was removed made the folder again.
///
/// They were unordered too. SDImageCache puts its stores and disk queries on one serial
/// queue, so a query sees every store made before it and two stores of one key land in
/// the order they were made. Here two loads of one key that each downloaded could leave the
/// older bytes on disk (the newer in memory, until evicted), and a load right after
/// another (a second thumbnail size of one URL) missed the original its predecessor was
/// still writing and downloaded it again. So each write waits for the writes of its keys
/// started before it, and ``waitForWrites(of:)`` lets a disk query wait for them. Keys
/// with nothing pending cost one dictionary look-up; counting costs one lock per
/// background write, never one per memory hit.
///
/// Thread-safe: the count, the pending writes by key and the waiters live under one
/// lock; waiters are resumed outside it.
final class BackgroundStores: Sendable {
    private struct State {
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// The latest write of each key still running, with the number that identifies it.
        var latest: [String: (id: Int, task: Task<Void, Never>)] = [:]
        var nextID = 0
        /// Queries waiting in ``waitForWrites(of:)``, by a number of their own: the write
        /// each waits for (the latest of its key when it came) and how to resume it.
        var queries: [Int: (write: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        /// Queries whose task was cancelled before they were recorded in `queries`.
        var cancelledQueries: Set<Int> = []
        var nextQueryID = 0
    }

    private let state = LockedValue(State())

    /// How many writes are running.
    var count: Int { state.withLock { $0.running } }

    /// Runs `work`, which writes `keys`, in a detached task of utility priority, after the
    /// writes of those keys started before it, counted until it returns.
    func run(writing keys: [String] = [], _ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in _ = start(keys, work, in: &state) }
    }

    /// Starts `work` after the writes of `keys` registered before it, counted, and records
    /// it as their latest. Under the lock, so that a write of the same keys started
    /// meanwhile finds this one as the latest and waits for it.
    private func start(_ keys: [String], _ work: @escaping @Sendable () async -> Void, in state: inout State) -> Task<Void, Never> {
        state.running += 1
        let id = state.nextID
        state.nextID += 1
        let before = Set(keys).compactMap { state.latest[$0]?.task }
        let task = Task.detached(priority: .utility) {
            for write in before { await write.value }
            await work()
            self.finished(id: id, keys: keys)
        }
        for key in keys { state.latest[key] = (id, task) }
        return task
    }

    /// Runs `work`, which writes `keys`, after the writes of those keys started before it,
    /// and returns when it is done: a `.waitStoreCache` load's stores, kept in order with
    /// the background ones.
    func write(_ keys: [String], _ work: @escaping @Sendable () async -> Void) async {
        let task = state.withLock { state in start(keys, work, in: &state) }
        await task.value
    }

    /// Returns once the writes of `key` started before this call have finished (at once
    /// when there are none), or throws ``WebImageError/cancelled`` as soon as the calling
    /// task is cancelled: a cancelled load does not wait for a slow disk.
    ///
    /// Waiting for the latest write of the key is waiting for all of them, since each write
    /// waits for those of its keys started before it.
    func waitForWrites(of key: String) async throws(WebImageError) {
        let queryID = state.withLock { state -> Int? in
            guard state.latest[key] != nil else { return nil }
            state.nextQueryID += 1
            return state.nextQueryID
        }
        guard let queryID else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state -> Bool in
                    guard state.cancelledQueries.remove(queryID) == nil, let write = state.latest[key] else { return false }
                    state.queries[queryID] = (write.id, continuation)
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let query = state.queries.removeValue(forKey: queryID) else {
                    state.cancelledQueries.insert(queryID)
                    return nil
                }
                return query.continuation
            }
            waiting?.resume()
        }
        // A cancel that came after the write resumed this query left its mark: drop it.
        state.withLock { _ = $0.cancelledQueries.remove(queryID) }
        if Task.isCancelled { throw .cancelled }
    }

    /// Returns once no write is running: at once when none is, else when the last one
    /// running (including any started while waiting) has finished.
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.running > 0 else { return true }
                state.waiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func finished(id: Int, keys: [String]) {
        let (ready, queries) = state.withLock { state -> ([CheckedContinuation<Void, Never>], [CheckedContinuation<Void, Never>]) in
            for key in keys where state.latest[key]?.id == id { state.latest[key] = nil }
            var queries: [CheckedContinuation<Void, Never>] = []
            for (queryID, query) in state.queries where query.write == id {
                state.queries[queryID] = nil
                queries.append(query.continuation)
            }
            state.running -= 1
            guard state.running == 0 else { return ([], queries) }
            defer { state.waiters = [] }
            return (state.waiters, queries)
        }
        for query in queries { query.resume() }
        for waiter in ready { waiter.resume() }
    }
}
