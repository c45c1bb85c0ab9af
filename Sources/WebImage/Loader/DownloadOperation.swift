import Foundation
import Synchronization

/// One network request that any number of callers share (SDWebImage's
/// `SDWebImageDownloaderOperation`): what to fetch and how, fixed when it is created.
///
/// The ``Downloader`` creates one operation per URL (and certificate policy) and attaches
/// each caller to it as a ``Subscriber``. Everything that changes over the operation's
/// life (its phase in the queue, its subscribers, whether it is being stopped) lives in
/// the downloader's ``DownloadScheduler``, under the downloader's one lock; the
/// operation itself is immutable, so the transfer's event loop reads its options with no
/// lock. Compared and hashed by identity: two operations for one URL are two requests.
/// Thread-safe.
final class DownloadOperation: Hashable, Sendable {
    /// What makes two downloads the same request.
    struct Key: Hashable, Sendable {
        var url: URL
        /// Whether certificate checks are off: such a download never serves a caller that
        /// wants them on, and the other way round.
        var allowsInvalidCertificates: Bool
        /// Whether the download connects to a pinned address
        /// (``DownloadRequestOptions/pinnedAddress``): a pinned caller never joins a download
        /// that resolved the host itself, and the other way round.
        var isPinned = false
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

    static func == (lhs: DownloadOperation, rhs: DownloadOperation) -> Bool {
        lhs === rhs
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
