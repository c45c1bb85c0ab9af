import AsyncHTTPClient
import Foundation
import Synchronization

/// One network request and every caller waiting for it (SDWebImage's
/// `SDWebImageDownloaderOperation`).
///
/// The ``Downloader`` creates one operation per URL (and certificate policy) and attaches
/// each caller to it as a subscriber, so concurrent callers share one request. Phase
/// changes happen under the downloader's lock; subscribers are added and removed under
/// this operation's own lock, which is always taken after the downloader's, never before.
/// Handlers are called outside both locks. Thread-safe.
final class DownloadOperation: Sendable {
    /// What makes two downloads the same request.
    struct Key: Hashable, Sendable {
        var url: URL
        /// Whether certificate checks are off: such a download never serves a caller that
        /// wants them on, and the other way round.
        var allowsInvalidCertificates: Bool
    }

    /// Where the operation is in its life.
    enum Phase: Sendable {
        /// Waiting in the queue.
        case pending
        /// Its request is in flight.
        case running
        /// The transfer ended; results are being decoded and handed out. No one may join.
        case delivering
        /// Every subscriber has had its completion.
        case done
    }

    /// One caller's share of the download.
    struct Subscriber: Sendable {
        /// How to decode for this caller; `nil` for a caller that wants the bytes only.
        var decodeOptions: ImageCoderOptions?
        var progressive: Bool
        var progress: LoadProgressHandler?
        var completion: @Sendable (Result<Delivery, WebImageError>) -> Void
    }

    /// What one caller receives: the bytes, and the image when it asked for one.
    struct Delivery: Sendable {
        var image: Image?
        var data: Data
        var url: URL
        var metrics: DownloadMetrics
        var response: DownloadResponse
    }

    private struct State {
        var phase = Phase.pending
        var subscribers: [Int: Subscriber] = [:]
        var request: HTTPClient.Task<ResponseReader.Outcome>?
        var isCancelled = false
        var doneWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let key: Key
    /// The options of the caller that started the download; its request-level fields
    /// (modifiers, decryptor, cached data) shape the one request.
    let requestOptions: DownloadRequestOptions
    private let state = Mutex(State())

    init(key: Key, requestOptions: DownloadRequestOptions) {
        self.key = key
        self.requestOptions = requestOptions
    }

    var url: URL { key.url }

    /// Moves to `phase`; called under the downloader's lock, except for `done`. Reaching
    /// `done` wakes every ``waitUntilDone()``.
    func setPhase(_ phase: Phase) {
        let waiters = state.withLock { state in
            state.phase = phase
            guard phase == .done else { return [CheckedContinuation<Void, Never>]() }
            defer { state.doneWaiters = [] }
            return state.doneWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once every subscriber has had its completion and the request is gone.
    func waitUntilDone() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.phase != .done { state.doneWaiters.append(continuation) }
                return state.phase == .done
            }
            if done { continuation.resume() }
        }
    }

    /// Keeps the request in flight, so the last cancelled token can stop it. `false` when
    /// the operation was cancelled before: the caller then cancels `request` itself.
    func setRequest(_ request: HTTPClient.Task<ResponseReader.Outcome>) -> Bool {
        state.withLock { state in
            state.request = request
            return !state.isCancelled
        }
    }

    /// Whether ``cancelRequest()`` was called.
    var isCancelled: Bool {
        state.withLock { $0.isCancelled }
    }

    /// Stops the request in flight, or the one about to be sent. AsyncHTTPClient then
    /// closes its connection and fails it with `cancelled`.
    func cancelRequest() {
        state.withLock { state in
            state.isCancelled = true
            return state.request
        }?.cancel()
    }

    /// Attaches a caller; `false` when the transfer already ended and a new request is needed.
    func add(_ subscriber: Subscriber, id: Int) -> Bool {
        state.withLock { state in
            guard state.phase == .pending || state.phase == .running else { return false }
            state.subscribers[id] = subscriber
            return true
        }
    }

    /// Detaches one caller. Returns its subscriber (nil when it already had its completion)
    /// and whether no caller is left.
    func remove(id: Int) -> (subscriber: Subscriber?, isEmpty: Bool) {
        state.withLock { state in
            let subscriber = state.subscribers.removeValue(forKey: id)
            return (subscriber, state.subscribers.isEmpty)
        }
    }

    /// Detaches every caller, for a failure or a cancellation that ends them all.
    func removeAll() -> [Subscriber] {
        state.withLock { state in
            let all = Array(state.subscribers.values)
            state.subscribers.removeAll()
            return all
        }
    }

    /// The callers still waiting that gave a progress handler (no allocation when none did,
    /// as this runs for every body chunk).
    func progressSubscribers() -> [Subscriber] {
        state.withLock { state in
            var found: [Subscriber] = []
            for subscriber in state.subscribers.values where subscriber.progress != nil { found.append(subscriber) }
            return found
        }
    }

    /// The callers still waiting, with what they asked for.
    func snapshot() -> [(id: Int, subscriber: Subscriber)] {
        state.withLock { state in state.subscribers.map { ($0.key, $0.value) } }
    }
}
