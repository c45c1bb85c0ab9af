import AsyncHTTPClient
import Foundation
import Synchronization

/// One network request that any number of callers share (SDWebImage's
/// `SDWebImageDownloaderOperation`): what to fetch and how, fixed when it is created.
///
/// The ``Downloader`` creates one operation per URL (and certificate policy) and attaches
/// each caller to it as a ``Subscriber``. What the queue decides over the operation's life
/// (its phase, its subscribers) lives in the downloader's ``DownloadScheduler``, under the
/// downloader's one lock; what the operation is stays fixed, so the transfer's event loop
/// reads its options with no lock. The request in flight is kept here, under a lock of
/// the operation's own (``keep(_:)``, ``stopRequest()``): a transfer sends and ends its
/// request without the downloader's lock, and without hashing the operation into a map. Compared and hashed by identity:
/// two operations for one URL are two requests. Thread-safe.
final class DownloadOperation: Hashable, Sendable {
    /// The operation's request, as ``keep(_:)`` and ``stopRequest()`` see it.
    private enum RequestSlot {
        /// Nothing in flight: not sent yet, or the transfer ended.
        case idle
        /// In flight (the last one sent, when a Basic challenge was answered).
        case sent(HTTPClient.Task<ResponseReader.Outcome>)
        /// Every caller left: a request sent later is refused, so its sender cancels it.
        case stopped
    }

    /// What makes two downloads the same request.
    struct Key: Hashable, Sendable {
        var url: URL
        /// Whether certificate checks are off: such a download never serves a caller that
        /// wants them on, and the other way round.
        var allowsInvalidCertificates: Bool
        /// The address a pinned download connects to (``DownloadRequestOptions/pinnedAddress``),
        /// `nil` when the host name is resolved as usual: a pinned caller joins only a
        /// download pinned to the same address, so it never receives bytes from an address
        /// its own checks did not vet.
        var pinnedAddress: String?
        /// A value of its own for a caller whose request is its own (see
        /// ``DownloadRequestOptions``): its key equals no other caller's.
        var exclusive: UInt64?
    }

    /// One caller's share of the download.
    struct Subscriber: Sendable {
        /// How to decode for this caller; `nil` for a caller that wants the bytes only.
        var decodeOptions: ImageCoderOptions?
        /// Where a caller that wants the bytes in a file wants them; `nil` for the others.
        var destination: (any DownloadDestination)?
        var progressive: Bool
        var progress: LoadProgressHandler?
        var completion: @Sendable (Result<Delivery, WebImageError>) -> Void
    }

    /// A body the download streamed into a caller's destination, committed.
    struct StoredBody: Sendable {
        var url: URL
        var byteCount: Int
        /// The destination it went to: the caller with this one (by identity) is served.
        var destination: any DownloadDestination
    }

    /// What one caller receives: the bytes (or the file they were streamed to), and the
    /// image when it asked for one.
    struct Delivery: Sendable {
        var image: Image?
        /// The body; empty when it was streamed to ``file`` and nobody needed it in memory.
        var data: Data
        var file: StoredBody?
        var url: URL
        var metrics: DownloadMetrics
        var response: DownloadResponse
    }

    let key: Key
    /// The options of the caller that started the download; its request-level fields
    /// (modifiers, decryptor, cached data) shape the one request.
    let requestOptions: DownloadRequestOptions
    /// Whether a caller with a progress handler ever subscribed. Set under the downloader's
    /// lock as one subscribes, never cleared: the transfer reports progress (taking that
    /// lock) only when it is set. A caller that subscribes just after a report was skipped
    /// misses it, as it would have missed it by subscribing just after the report ran.
    private let progressWanted = Atomic(false)
    /// Whether a caller that wants the body in a file ever subscribed: set and read the
    /// same way, so that a response head takes that lock to choose where the body goes
    /// only when a file is possible.
    private let fileWanted = Atomic(false)
    private let request = LockedValue(RequestSlot.idle)
    /// Progress reports in flight, and the completions of callers who cancelled during one,
    /// held until it ends (see ``complete(_:with:)``). Never closed: other callers still
    /// get reports.
    private let reports = ProgressGate()

    init(key: Key, requestOptions: DownloadRequestOptions) {
        self.key = key
        self.requestOptions = requestOptions
    }

    var url: URL { key.url }

    /// Whether any caller ever asked for progress (see ``markProgressWanted()``).
    var isProgressWanted: Bool { progressWanted.load(ordering: .acquiring) }

    /// A caller with a progress handler subscribed.
    func markProgressWanted() {
        progressWanted.store(true, ordering: .releasing)
    }

    /// Whether any caller ever asked for the body in a file (see ``markFileWanted()``).
    var isFileWanted: Bool { fileWanted.load(ordering: .acquiring) }

    /// A caller with a ``DownloadDestination`` subscribed.
    func markFileWanted() {
        fileWanted.store(true, ordering: .releasing)
    }

    /// Keeps `task`, the request just sent, so that ``stopRequest()`` can cancel it.
    /// `false` when the request was stopped first: the caller then cancels `task` itself.
    func keep(_ task: HTTPClient.Task<ResponseReader.Outcome>) -> Bool {
        request.withLock { slot in
            if case .stopped = slot { return false }
            slot = .sent(task)
            return true
        }
    }

    /// Every caller left (or everything was cancelled): makes ``keep(_:)`` refuse any
    /// request sent later, and returns the one in flight, for the caller to cancel once it
    /// holds no lock (AsyncHTTPClient then closes the connection and fails the request
    /// with `cancelled`). The downloader calls it under its own lock, as the scheduler
    /// marks the operation stopping, so that both say the same at every moment.
    func stopRequest() -> HTTPClient.Task<ResponseReader.Outcome>? {
        request.withLock { slot in
            defer { slot = .stopped }
            guard case .sent(let task) = slot else { return nil }
            return task
        }
    }

    /// Whether ``stopRequest()`` was called: a request not yet sent need not be.
    var isRequestStopped: Bool {
        request.withLock { slot in
            if case .stopped = slot { return true }
            return false
        }
    }

    /// The transfer ended: lets go of its request (which holds the reader, which holds
    /// this operation), unless it was stopped.
    func requestEnded() {
        request.withLock { slot in
            if case .sent = slot { slot = .idle }
        }
    }

    /// A progress report starts: it has taken (or is about to take) a snapshot of the
    /// callers with progress handlers and calls them outside any lock.
    func beginProgressReport() {
        _ = reports.enter()
    }

    /// A progress report has called every handler: completions held meanwhile run now.
    func endProgressReport() {
        reports.leave()
    }

    /// Completes a caller that left this operation (it cancelled, or everything was). A
    /// caller with a progress handler may be in a report's snapshot already: while a report
    /// is in flight its completion waits for the report's end, so its progress handler is
    /// never called after its completion (``ImageLoader``'s contract). Without one, or with
    /// no report in flight, it completes at once.
    func complete(_ subscriber: Subscriber, with result: Result<Delivery, WebImageError>) {
        guard subscriber.progress != nil else {
            subscriber.completion(result)
            return
        }
        let completion = subscriber.completion
        reports.whenIdle { completion(result) }
    }

    static func == (lhs: DownloadOperation, rhs: DownloadOperation) -> Bool {
        lhs === rhs
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
