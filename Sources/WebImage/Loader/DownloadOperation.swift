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
    }

    private struct State {
        var phase = Phase.pending
        var subscribers: [Int: Subscriber] = [:]
        var task: Task<Void, Never>?
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

    /// Moves to `phase`; called under the downloader's lock.
    func setPhase(_ phase: Phase) {
        state.withLock { $0.phase = phase }
    }

    /// Keeps the task that runs the request, so the last cancelled token can stop it.
    func setTask(_ task: Task<Void, Never>) {
        state.withLock { $0.task = task }
    }

    var task: Task<Void, Never>? {
        state.withLock { $0.task }
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

    /// The callers still waiting, with what they asked for.
    func snapshot() -> [(id: Int, subscriber: Subscriber)] {
        state.withLock { state in state.subscribers.map { ($0.key, $0.value) } }
    }
}
