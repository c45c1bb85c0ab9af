import AsyncHTTPClient
import Foundation

/// The queue: coalescing, ordering, the concurrency limit and cancellation. Everything
/// here runs under the downloader's lock except where a function says otherwise.
extension Downloader {
    /// A download waiting for a free slot.
    struct QueuedDownload {
        let operation: DownloadOperation
        var priority: DownloadPriority
        /// Arrival order, for FIFO and LIFO.
        let sequence: Int
    }

    /// Everything the downloader's lock protects.
    struct State {
        var maxConcurrentDownloads: Int
        var headers: [String: String]
        var isSuspended = false
        var isShutDown = false
        /// The operation callers of each key join: queued or running, until its transfer ends.
        var operations: [DownloadOperation.Key: DownloadOperation] = [:]
        var pending: [QueuedDownload] = []
        /// Running operations, until their task ends (a cancelled one still holds its slot
        /// until its connection is really gone, so the server never sees more than the limit).
        var running: [ObjectIdentifier: DownloadOperation] = [:]
        var secureClient: HTTPClient?
        var insecureClient: HTTPClient?
        var eventContinuations: [Int: AsyncStream<DownloadEvent>.Continuation] = [:]
        var nextID = 0

        init(maxConcurrentDownloads: Int, headers: [String: String]) {
            self.maxConcurrentDownloads = maxConcurrentDownloads
            self.headers = headers
        }

        mutating func makeID() -> Int {
            nextID += 1
            return nextID
        }
    }

    /// Attaches `subscriber` to the operation for `key`, creating and queueing one when
    /// none is open. `nil` after shutdown.
    func enqueue(
        _ subscriber: DownloadOperation.Subscriber,
        key: DownloadOperation.Key,
        options: DownloadRequestOptions,
        state: inout State
    ) -> DownloadToken? {
        guard !state.isShutDown else { return nil }
        let id = state.makeID()
        if let existing = state.operations[key], existing.add(subscriber, id: id) {
            // SDWebImage raises a queued operation's priority when a more urgent caller joins.
            if let index = state.pending.firstIndex(where: { $0.operation === existing }),
               state.pending[index].priority < options.priority {
                state.pending[index].priority = options.priority
            }
            return DownloadToken(url: key.url, id: id, operation: existing, downloader: self)
        }
        let operation = DownloadOperation(key: key, requestOptions: options)
        _ = operation.add(subscriber, id: id)
        state.operations[key] = operation
        state.pending.append(QueuedDownload(operation: operation, priority: options.priority, sequence: id))
        startQueuedDownloads(&state)
        return DownloadToken(url: key.url, id: id, operation: operation, downloader: self)
    }

    /// Starts queued operations while slots are free and the queue is not suspended.
    func startQueuedDownloads(_ state: inout State) {
        while !state.isSuspended, !state.isShutDown,
              state.running.count < state.maxConcurrentDownloads,
              let index = nextQueuedIndex(state) {
            let operation = state.pending.remove(at: index).operation
            state.running[ObjectIdentifier(operation)] = operation
            operation.setPhase(.running)
            operation.setTask(Task { await self.run(operation) })
        }
    }

    /// The queued download to start next: highest priority, then oldest (FIFO) or newest (LIFO).
    private func nextQueuedIndex(_ state: State) -> Int? {
        let lifo = config.executionOrder == .lifo
        var best: Int?
        for (index, candidate) in state.pending.enumerated() {
            guard let current = best else { best = index; continue }
            let chosen = state.pending[current]
            if candidate.priority != chosen.priority {
                if candidate.priority > chosen.priority { best = index }
            } else if lifo ? candidate.sequence > chosen.sequence : candidate.sequence < chosen.sequence {
                best = index
            }
        }
        return best
    }

    /// Runs one operation's transfer, frees its slot, then decodes and hands out results.
    /// Runs on the operation's own task.
    private func run(_ operation: DownloadOperation) async {
        let outcome = await transfer(operation)
        state.withLock { state in
            state.running[ObjectIdentifier(operation)] = nil
            if state.operations[operation.key] === operation { state.operations[operation.key] = nil }
            operation.setPhase(.delivering)
            startQueuedDownloads(&state)
        }
        switch outcome {
        case .success(let body):
            await deliver(body, of: operation)
        case .failure(let error):
            for subscriber in operation.removeAll() { subscriber.completion(.failure(error)) }
        }
        operation.setPhase(.done)
    }

    /// Ends one caller's load with `cancelled`; stops the operation when it was the last.
    func cancel(_ token: DownloadToken) {
        let operation = token.operation
        let (subscriber, taskToCancel): (DownloadOperation.Subscriber?, Task<Void, Never>?) = state.withLock { state in
            let (subscriber, isEmpty) = operation.remove(id: token.id)
            guard subscriber != nil, isEmpty else { return (subscriber, nil) }
            if state.operations[operation.key] === operation { state.operations[operation.key] = nil }
            if let index = state.pending.firstIndex(where: { $0.operation === operation }) {
                state.pending.remove(at: index)
                operation.setPhase(.done)
                return (subscriber, nil)
            }
            return (subscriber, operation.task)
        }
        taskToCancel?.cancel()
        subscriber?.completion(.failure(.cancelled))
    }

    /// Empties the queue and the open operations; returns every waiting caller and the
    /// tasks to cancel.
    func takeEverything(_ state: inout State) -> ([DownloadOperation.Subscriber], [Task<Void, Never>]) {
        var subscribers: [DownloadOperation.Subscriber] = []
        for queued in state.pending {
            subscribers += queued.operation.removeAll()
            queued.operation.setPhase(.done)
        }
        state.pending.removeAll()
        var tasks: [Task<Void, Never>] = []
        for operation in state.running.values {
            subscribers += operation.removeAll()
            if let task = operation.task { tasks.append(task) }
        }
        state.operations.removeAll()
        return (subscribers, tasks)
    }
}
