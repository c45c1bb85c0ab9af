import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Synchronization

/// Downloads images over HTTP and HTTPS (SDWebImage's `SDWebImageDownloader`), on
/// AsyncHTTPClient.
///
/// Concurrent requests for one URL share a single network request; each caller gets its
/// own ``DownloadToken`` and its own image, decoded with its own decode options (equal
/// options are decoded once). Requests wait in a queue that runs at most
/// ``maxConcurrentDownloads`` at once, highest priority first, FIFO or LIFO within a
/// priority. Responses are checked as SDWebImage does (response modifier, status code,
/// content type, 304), bodies are bounded in size and time, and decoding runs on a Swift
/// task, never on a network event loop.
///
/// Thread-safe. Every completion is called exactly once, on an arbitrary thread. A
/// downloader you create owns HTTP clients: call ``shutdown()`` before releasing it
/// (``shared`` lives as long as the process).
///
/// ```swift
/// let downloader = Downloader(config: Downloader.Configuration())
/// let result = try await downloader.load(url, options: DownloadRequestOptions(), progress: nil)
/// try await downloader.shutdown()
/// ```
public final class Downloader: ImageLoader {
    /// Receives the outcome of one caller's download; called exactly once.
    public typealias Completion = @Sendable (Result<ImageLoaderOutput, WebImageError>) -> Void

    /// The process-wide downloader with the default configuration.
    public static let shared = Downloader()

    /// The source of ``DownloadOperation/Key/exclusive`` values, process-wide.
    private static let exclusiveKeys = Atomic<UInt64>(0)

    /// Everything the downloader's one lock protects: the scheduler's decisions and what
    /// the downloader needs to act on them. Handlers, requests and clients are called only
    /// after the lock is released.
    struct State {
        var scheduler: DownloadScheduler
        /// Who waits (``shutdown()``) for an operation to be forgotten by the scheduler.
        var doneWaiters: [DownloadOperation: [CheckedContinuation<Void, Never>]] = [:]

        /// Takes who waits for `operation` to be forgotten. Only a shutdown waits, so the
        /// usual empty map is not hashed into (this runs for every transfer).
        mutating func takeDoneWaiters(of operation: DownloadOperation) -> [CheckedContinuation<Void, Never>] {
            doneWaiters.isEmpty ? [] : doneWaiters.removeValue(forKey: operation) ?? []
        }
    }

    /// The headers sent with every request (``setValue(_:forHTTPHeaderField:)``), under a
    /// lock of their own: every transfer reads them as it begins, and need not contend for
    /// the scheduler's lock (taken from every event loop) to do so. A plain value.
    struct SharedHeaders {
        var fields: [String: String] {
            didSet { requestHeaders = Self.httpHeaders(fields) }
        }
        /// ``fields`` as the HTTP client takes them, rebuilt when one changes rather than
        /// for every request.
        private(set) var requestHeaders: HTTPHeaders

        init(_ fields: [String: String]) {
            self.fields = fields
            requestHeaders = Self.httpHeaders(fields)
        }

        private static func httpHeaders(_ fields: [String: String]) -> HTTPHeaders {
            HTTPHeaders(fields.map { ($0.key, $0.value) })
        }
    }

    /// The configuration the downloader was created with.
    public let config: Downloader.Configuration
    let state: LockedValue<State>
    let headers: LockedValue<SharedHeaders>
    /// The HTTP clients, under a lock of their own: every transfer looks one up as it
    /// begins, and need not contend for the scheduler's lock to do so.
    let clients = LockedValue(Clients())
    /// The open event streams, under their own lock: events are sent from every event
    /// loop and must not wait for the queue.
    let listeners = LockedValue(EventListeners())
    /// How many streams ``listeners`` holds, written under its lock and read without it,
    /// so that ``emit(_:)`` skips the lock when nobody listens.
    let listenerCount = Atomic(0)
    /// The `ETag` / `Last-Modified` of recent responses, to make revalidations conditional.
    let validators = HTTPValidatorStore()
    /// Which event loop each transfer's response is read on (see ``LoopAffinity``).
    let loopAffinity: LoopAffinity

    /// Creates a downloader. No connection or client exists until the first download.
    public init(config: Downloader.Configuration = Downloader.Configuration()) {
        self.config = config
        let scheduler = DownloadScheduler(maxConcurrentDownloads: config.maxConcurrentDownloads, lifo: config.executionOrder == .lifo)
        state = LockedValue(State(scheduler: scheduler))
        headers = LockedValue(SharedHeaders(config.httpHeaders))
        loopAffinity = LoopAffinity(limit: Self.connectionsPerHost(config))
    }

    /// How many downloads run at once; changing it starts queued ones at once when it
    /// grows. Values below 1 count as 1. Starts as ``Downloader/Configuration/maxConcurrentDownloads``.
    public var maxConcurrentDownloads: Int {
        get { state.withLock { $0.scheduler.maxConcurrentDownloads } }
        set { begin(state.withLock { $0.scheduler.setMaxConcurrentDownloads(newValue) }) }
    }

    /// While `true`, queued downloads do not start (running ones go on). Default `false`.
    public var isSuspended: Bool {
        get { state.withLock { $0.scheduler.isSuspended } }
        set { begin(state.withLock { $0.scheduler.setSuspended(newValue) }) }
    }

    /// Network requests queued or running (coalesced callers count once). A request whose
    /// last caller cancelled stops counting at once, though it keeps its slot until its
    /// connection is closed.
    public var currentDownloadCount: Int {
        state.withLock { $0.scheduler.currentDownloadCount }
    }

    /// Callers waiting for a download, coalesced ones each counted: for a test that must
    /// act once every caller has joined a request.
    var waitingCallerCount: Int {
        state.withLock { $0.scheduler.subscriberCount }
    }

    /// Sets (or with `nil` removes) a header sent with every later request.
    public func setValue(_ value: String?, forHTTPHeaderField field: String) {
        headers.withLock { headers in
            let existing = headers.fields.keys.first { $0.caseInsensitiveCompare(field) == .orderedSame }
            if let existing { headers.fields[existing] = nil }
            if let value { headers.fields[field] = value }
        }
    }

    /// The value of a header sent with every request, if set.
    public func value(forHTTPHeaderField field: String) -> String? {
        headers.withLock { headers in
            headers.fields.first { $0.key.caseInsensitiveCompare(field) == .orderedSame }?.value
        }
    }

    /// Whether `url` is `http` or `https` with a host.
    public func canLoad(_ url: URL) -> Bool {
        Self.isDownloadable(url)
    }

    /// Starts (or joins) the download of `url` and returns this caller's token; the image
    /// is decoded with `options.decodeOptions`.
    ///
    /// A `nil` or non-HTTP URL calls `completion` at once with ``WebImageError/invalidURL(_:)``
    /// and returns `nil`, as does a downloader that was shut down (with
    /// ``WebImageError/invalidDownloadOperation``).
    @discardableResult
    public func downloadImage(
        with url: URL?,
        options: DownloadRequestOptions = DownloadRequestOptions(),
        progress: LoadProgressHandler? = nil,
        completion: @escaping Completion
    ) -> DownloadToken? {
        register(url, options: options, decode: true, progress: progress) { result in
            completion(result.flatMap { delivery in
                // Every caller registered with `decode: true` gets an image or an error.
                guard let image = delivery.image else { return .failure(.badImageData("no image decoded")) }
                return .success(ImageLoaderOutput(
                    image: image, data: delivery.data, url: delivery.url, metrics: delivery.metrics, response: delivery.response
                ))
            })
        }
    }

    /// Like ``downloadImage(with:options:progress:completion:)`` but hands back the bytes
    /// without decoding them (for a proxy, a prefetcher or a cache warmer). Shares the
    /// network request with concurrent image callers of the same URL. The whole body is
    /// held in memory; ``downloadFile(with:to:options:progress:completion:)`` streams it
    /// to a file instead.
    @discardableResult
    public func downloadData(
        with url: URL?,
        options: DownloadRequestOptions = DownloadRequestOptions(),
        progress: LoadProgressHandler? = nil,
        completion: @escaping @Sendable (Result<DownloadedData, WebImageError>) -> Void
    ) -> DownloadToken? {
        let limit = config.maximumResponseSize
        return register(url, options: options, decode: false, progress: progress) { result in
            guard case .success(let delivery) = result, let file = delivery.file, delivery.data.isEmpty else {
                completion(result.map { DownloadedData(data: $0.data, url: $0.url, metrics: $0.metrics, response: $0.response) })
                return
            }
            // Joined a download that streamed its body to another caller's file.
            BlockingIO.start {
                do {
                    let data = try Self.readFile(file, limit: limit)
                    completion(.success(DownloadedData(data: data, url: delivery.url, metrics: delivery.metrics, response: delivery.response)))
                } catch {
                    completion(.failure(WebImageError(error)))
                }
            }
        }
    }

    func register(
        _ url: URL?,
        options: DownloadRequestOptions,
        decode: Bool,
        destination: (any DownloadDestination)? = nil,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<DownloadOperation.Delivery, WebImageError>) -> Void
    ) -> DownloadToken? {
        guard let url, Self.isDownloadable(url) else {
            completion(.failure(.invalidURL(url?.absoluteString ?? "nil")))
            return nil
        }
        // A caller with request-level options of its own (a modifier, a decryptor, cookies,
        // cached bytes) gets a request of its own: a modifier may add credentials, and no
        // other caller may receive what they fetched, or bytes decrypted or checked for
        // someone else. SDWebImage keys its operations by URL alone; one process there is
        // one user, a server here serves many.
        let exclusive = options.requestModifier != nil || options.responseModifier != nil || options.decryptor != nil
            || options.handleCookies || options.cachedData != nil
        // The downloader's hooks stand in for those the caller did not name.
        var options = options
        options.requestModifier = options.requestModifier ?? config.requestModifier
        options.responseModifier = options.responseModifier ?? config.responseModifier
        options.decryptor = options.decryptor ?? config.decryptor
        let subscriber = DownloadOperation.Subscriber(
            decodeOptions: decode ? options.decodeOptions : nil,
            destination: decode ? nil : destination,
            progressive: decode && options.progressiveLoad,
            progress: progress,
            completion: completion
        )
        let key = DownloadOperation.Key(
            url: url,
            allowsInvalidCertificates: options.allowInvalidCertificates || config.allowInvalidCertificates,
            pinnedAddress: options.pinnedAddress,
            exclusive: exclusive ? Self.exclusiveKeys.add(1, ordering: .relaxed).newValue : nil
        )
        let action = state.withLock { state in
            let action = state.scheduler.subscribe(subscriber, key: key, options: options)
            if case .wait(let subscription, _) = action {
                if progress != nil { subscription.operation.markProgressWanted() }
                if subscriber.destination != nil { subscription.operation.markFileWanted() }
            }
            return action
        }
        switch action {
        case .reject:
            completion(.failure(.invalidDownloadOperation))
            return nil
        case .wait(let subscription, let start):
            let token = DownloadToken(url: key.url, id: subscription.id, operation: subscription.operation, downloader: self)
            begin(start)
            return token
        }
    }

    /// Cancels every queued and running download; each caller gets
    /// ``WebImageError/cancelled``.
    public func cancelAllDownloads() {
        let (action, inFlight) = state.withLock { state in
            let action = state.scheduler.cancelAll()
            return (action, action.stopRequests.compactMap { $0.stopRequest() })
        }
        for request in inFlight { request.cancel() }
        for (operation, subscriber) in action.cancelled { operation.complete(subscriber, with: .failure(.cancelled)) }
    }

    /// Cancels everything, waits for running downloads to stop, ends every event stream
    /// and shuts the HTTP clients down. Later downloads fail with
    /// ``WebImageError/invalidDownloadOperation``. Safe to call more than once.
    public func shutdown() async throws {
        let (action, inFlight) = state.withLock { state in
            let action = state.scheduler.shutDown()
            return (action, action.stopRequests.compactMap { $0.stopRequest() })
        }
        let clients = self.clients.withLock { $0.close() }
        let streams = listeners.withLock { listeners in
            listeners.isClosed = true
            listenerCount.store(0, ordering: .releasing)
            defer { listeners.continuations.removeAll() }
            return Array(listeners.continuations.values)
        }
        for request in inFlight { request.cancel() }
        for (operation, subscriber) in action.cancelled { operation.complete(subscriber, with: .failure(.cancelled)) }
        for operation in action.stopRequests { await waitUntilDone(operation) }
        for stream in streams { stream.finish() }
        // Every transfer has ended: the pinned clients are all idle.
        let pinned = self.clients.withLock { $0.pinned.removeAll() }
        for client in clients + pinned { try await client.shutdown() }
    }

    /// An http(s) URL with a host and a usable port (see ``Foundation/URL/hasUsablePort``:
    /// the HTTP client traps on `:70000`).
    static func isDownloadable(_ url: URL) -> Bool {
        guard let scheme = url.scheme, isHTTPScheme(scheme) else { return false }
        return !(url.host ?? "").isEmpty && url.hasUsablePort
    }

    /// Whether `scheme` is `http` or `https` in any case. Compares the bytes instead of
    /// lowercasing a copy, as it runs for every download.
    static func isHTTPScheme(_ scheme: String) -> Bool {
        let bytes = scheme.utf8
        guard bytes.count == 4 || bytes.count == 5 else { return false }
        // `| 0x20` lowercases an ASCII letter; no other byte becomes one of "https".
        for (byte, letter) in zip(bytes, "https".utf8) where byte | 0x20 != letter { return false }
        return true
    }
}

/// One caller's handle on a download; cancelling it ends only that caller's load.
///
/// Every call to ``Downloader/downloadImage(with:options:progress:completion:)`` returns its
/// own token, even when it shares a network request with other callers. ``cancel()`` calls
/// this caller's completion with ``WebImageError/cancelled`` (unless it already had its
/// result) and stops the request only when no other caller still waits for it.
/// Thread-safe; cancelling twice does nothing the second time.
///
/// ```swift
/// let token = downloader.downloadImage(with: url) { result in print(result) }
/// token?.cancel()
/// ```
public final class DownloadToken: Sendable {
    /// The URL this token's caller asked for.
    public let url: URL
    let id: Int
    let operation: DownloadOperation
    private let downloader: Downloader

    init(url: URL, id: Int, operation: DownloadOperation, downloader: Downloader) {
        self.url = url
        self.id = id
        self.operation = operation
        self.downloader = downloader
    }

    /// Ends this caller's load with ``WebImageError/cancelled``.
    public func cancel() {
        downloader.cancel(self)
    }
}
