import AsyncHTTPClient
import Foundation

/// The queue: coalescing, ordering, the concurrency limit and cancellation. Everything
/// here runs under the downloader's lock except where a function says otherwise.
extension Downloader {
    /// Everything the downloader's lock protects.
    struct State {
        var maxConcurrentDownloads: Int
        var headers: [String: String]
        var isSuspended = false
        var isShutDown = false
        /// The operation callers of each key join: queued or running, until its transfer ends.
        var operations: [DownloadOperation.Key: DownloadOperation] = [:]
        var pending = DownloadQueue()
        /// Running operations, until their transfer ends (a cancelled one still holds its
        /// slot until its connection is really gone, so the server never sees more than the
        /// limit).
        var running: [ObjectIdentifier: DownloadOperation] = [:]
        var secureClient: HTTPClient?
        var insecureClient: HTTPClient?
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
    /// none is open. Returns the token (`nil` after shutdown) and the operations that got a
    /// slot, for the caller to ``begin(_:)`` once the lock is released.
    func enqueue(
        _ subscriber: DownloadOperation.Subscriber,
        key: DownloadOperation.Key,
        options: DownloadRequestOptions,
        state: inout State
    ) -> (token: DownloadToken?, ready: [DownloadOperation]) {
        guard !state.isShutDown else { return (nil, []) }
        let id = state.makeID()
        if let existing = state.operations[key], existing.add(subscriber, id: id) {
            // SDWebImage raises a queued operation's priority when a more urgent caller joins.
            state.pending.raise(existing, to: options.priority)
            return (DownloadToken(url: key.url, id: id, operation: existing, downloader: self), [])
        }
        let operation = DownloadOperation(key: key, requestOptions: options)
        _ = operation.add(subscriber, id: id)
        state.operations[key] = operation
        state.pending.append(operation, priority: options.priority, sequence: id)
        return (DownloadToken(url: key.url, id: id, operation: operation, downloader: self), takeStartableDownloads(&state))
    }

    /// Moves queued operations to the running set while slots are free and the queue is
    /// not suspended; the caller begins them outside the lock.
    func takeStartableDownloads(_ state: inout State) -> [DownloadOperation] {
        var ready: [DownloadOperation] = []
        while !state.isSuspended, !state.isShutDown,
              state.running.count < state.maxConcurrentDownloads,
              let operation = state.pending.takeNext(lifo: config.executionOrder == .lifo) {
            state.running[ObjectIdentifier(operation)] = operation
            operation.setPhase(.running)
            ready.append(operation)
        }
        return ready
    }

    /// Starts the transfers of operations that got a slot. Called outside the lock. A
    /// transfer that ends before it is sent (refused by the request modifier or the HTTP
    /// client, cancelled) frees its slot here, and the loop starts whatever that lets start:
    /// a long queue of such failures must not become as many nested calls on one thread's
    /// stack.
    func begin(_ operations: [DownloadOperation]) {
        var queue = operations
        var next = 0
        while next < queue.count {
            let operation = queue[next]
            next += 1
            guard let outcome = beginTransfer(operation) else { continue }
            queue += freeSlot(of: operation)
            handOut(outcome, of: operation)
        }
    }

    /// Ends an operation's transfer: frees its slot (starting the next queued ones), then
    /// hands out the outcome. Runs where the transfer ended, usually its event loop.
    func transferEnded(_ operation: DownloadOperation, _ outcome: Result<TransferredBody, WebImageError>) {
        begin(freeSlot(of: operation))
        handOut(outcome, of: operation)
    }

    /// Takes an ended operation out of the running set; returns the queued operations
    /// that got its slot, for the caller to ``begin(_:)``.
    private func freeSlot(of operation: DownloadOperation) -> [DownloadOperation] {
        state.withLock { state in
            state.running[ObjectIdentifier(operation)] = nil
            if state.operations[operation.key] === operation { state.operations[operation.key] = nil }
            operation.setPhase(.delivering)
            return takeStartableDownloads(&state)
        }
    }

    /// Gives an ended operation's outcome to its callers.
    private func handOut(_ outcome: Result<TransferredBody, WebImageError>, of operation: DownloadOperation) {
        switch outcome {
        case .success(let body):
            deliver(body, of: operation)
        case .failure(let error):
            for subscriber in operation.removeAll() { subscriber.completion(.failure(error)) }
            operation.setPhase(.done)
        }
    }

    /// Ends one caller's load with `cancelled`; stops the operation when it was the last.
    func cancel(_ token: DownloadToken) {
        let operation = token.operation
        let (subscriber, stopsRequest): (DownloadOperation.Subscriber?, Bool) = state.withLock { state in
            let (subscriber, isEmpty) = operation.remove(id: token.id)
            guard subscriber != nil, isEmpty else { return (subscriber, false) }
            if state.operations[operation.key] === operation { state.operations[operation.key] = nil }
            if state.pending.remove(operation) {
                operation.setPhase(.done)
                return (subscriber, false)
            }
            return (subscriber, true)
        }
        if stopsRequest { operation.cancelRequest() }
        subscriber?.completion(.failure(.cancelled))
    }

    /// Empties the queue and the open operations; returns every waiting caller and the
    /// running operations, whose requests the caller cancels.
    func takeEverything(_ state: inout State) -> ([DownloadOperation.Subscriber], [DownloadOperation]) {
        var subscribers: [DownloadOperation.Subscriber] = []
        for operation in state.pending.removeAll() {
            subscribers += operation.removeAll()
            operation.setPhase(.done)
        }
        let running = Array(state.running.values)
        for operation in running { subscribers += operation.removeAll() }
        state.operations.removeAll()
        return (subscribers, running)
    }
}
