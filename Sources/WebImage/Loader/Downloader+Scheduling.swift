import AsyncHTTPClient
import Foundation

/// Performing the ``DownloadScheduler``'s actions. Each function here hands the scheduler
/// one event under the downloader's lock, then acts on the answer (begins transfers,
/// stops requests, calls completions) after releasing it.
extension Downloader {
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
            let (ended, waiters) = endTransfer(operation, outcome)
            queue += ended.start
            handOut(outcome, ended.delivery, of: operation, then: waiters)
        }
    }

    /// Ends an operation's transfer: frees its slot (starting the next queued ones), then
    /// hands out the outcome. Runs where the transfer ended, usually its event loop.
    func transferEnded(_ operation: DownloadOperation, _ outcome: Result<TransferredBody, WebImageError>) {
        let (ended, waiters) = endTransfer(operation, outcome)
        begin(ended.start)
        handOut(outcome, ended.delivery, of: operation, then: waiters)
    }

    /// Tells the scheduler the transfer ended and forgets its request. An outcome handed
    /// out at once (``DownloadScheduler/Delivery/now(_:)``) has the operation forgotten in
    /// the same step: who waited for that (``shutdown()``) is returned, to resume once the
    /// callers had their completions.
    private func endTransfer(
        _ operation: DownloadOperation,
        _ outcome: Result<TransferredBody, WebImageError>
    ) -> (DownloadScheduler.TransferEndedAction, [CheckedContinuation<Void, Never>]) {
        let succeeded = if case .success = outcome { true } else { false }
        releasePinnedClient(of: operation)
        operation.requestEnded()
        return state.withLock { state in
            let ended = state.scheduler.transferEnded(operation, succeeded: succeeded)
            guard case .now = ended.delivery else { return (ended, []) }
            return (ended, state.takeDoneWaiters(of: operation))
        }
    }

    /// Gives an ended operation's outcome to its callers, decoding first when the
    /// scheduler says so; then resumes `waiters` (see ``endTransfer(_:_:)``).
    private func handOut(
        _ outcome: Result<TransferredBody, WebImageError>,
        _ delivery: DownloadScheduler.Delivery,
        of operation: DownloadOperation,
        then waiters: [CheckedContinuation<Void, Never>]
    ) {
        defer { for waiter in waiters { waiter.resume() } }
        switch (delivery, outcome) {
        case (.none, _):
            return
        case (.now(let subscribers), .failure(let error)):
            for subscriber in subscribers { subscriber.completion(.failure(error)) }
        case (.now(let subscribers), .success(let body)):
            // Callers that want bytes only get them at once, on the calling thread (the
            // transfer's event loop); one that needs a streamed file read back or copied
            // does that off the loop in its own completion.
            let delivery = DownloadOperation.Delivery(
                image: nil, data: body.data, file: body.file, url: body.response.url, metrics: body.metrics, response: body.response
            )
            for subscriber in subscribers { subscriber.completion(.success(delivery)) }
        case (.afterDecoding, .success(let body)):
            Task {
                await decodeAndDeliver(body, of: operation)
                deliveryFinished(operation)
            }
        case (.afterDecoding, .failure):
            // The scheduler decodes only successful transfers.
            assertionFailure("a failed transfer has nothing to decode")
            deliveryFinished(operation)
        }
    }

    /// Every caller of a delivered operation had its completion: the scheduler forgets it
    /// and whoever waits for that (``shutdown()``) goes on.
    func deliveryFinished(_ operation: DownloadOperation) {
        let waiters = state.withLock { state in
            state.scheduler.deliveryFinished(operation)
            return state.takeDoneWaiters(of: operation)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the scheduler has forgotten `operation`: every caller had its
    /// completion and the request is gone.
    func waitUntilDone(_ operation: DownloadOperation) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                guard state.scheduler.contains(operation) else { return true }
                state.doneWaiters[operation, default: []].append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Ends one caller's load with `cancelled`; stops the request when it was the last.
    func cancel(_ token: DownloadToken) {
        let (action, inFlight) = state.withLock { state -> (DownloadScheduler.CancelAction, HTTPClient.Task<ResponseReader.Outcome>?) in
            let action = state.scheduler.cancel(subscriber: token.id, of: token.operation)
            guard case .completeAndStopRequest(_, let operation) = action else { return (action, nil) }
            return (action, operation.stopRequest())
        }
        switch action {
        case .none:
            break
        case .complete(let subscriber):
            token.operation.complete(subscriber, with: .failure(.cancelled))
        case .completeAndStopRequest(let subscriber, _):
            // A request not yet sent is refused when it is (see `DownloadOperation.keep`).
            inFlight?.cancel()
            token.operation.complete(subscriber, with: .failure(.cancelled))
        }
    }
}
