import Foundation

/// What the downloader reports about each network request (SDWebImage's download
/// notifications: start, receive response, stop, finish).
///
/// Events describe network requests, not callers: one coalesced request gives one
/// `started` however many tokens share it. `stopped` follows every `started` (success,
/// failure or cancellation); `finished` follows `stopped` only when the body arrived whole
/// and passed every check. Decoding comes after.
///
/// ```swift
/// for await event in downloader.events() {
///     if case .finished(let url, let metrics) = event { print(url, metrics.totalTime) }
/// }
/// ```
public enum DownloadEvent: Sendable, Equatable {
    /// A request for this URL went out.
    case started(URL)
    /// The response head arrived (after any redirects and authentication).
    case receivedResponse(URL, statusCode: Int, expectedSize: Int)
    /// The request ended, for whatever reason.
    case stopped(URL, DownloadMetrics)
    /// The request ended with a complete, acceptable body.
    case finished(URL, DownloadMetrics)
}

/// The downloader's event streams (``Downloader/events()``).
extension Downloader {
    /// The open event streams of one downloader.
    ///
    /// Kept under a lock of its own, not the downloader's: events are sent from every
    /// event loop for every transfer and must never wait for the queue's decisions. A
    /// plain value, not thread-safe by itself.
    ///
    /// ```swift
    /// let listeners = LockedValue(EventListeners())
    /// let open = listeners.withLock { Array($0.continuations.values) }
    /// ```
    struct EventListeners {
        var continuations: [Int: AsyncStream<DownloadEvent>.Continuation] = [:]
        var nextID = 0
        /// Set by ``shutdown()``: later streams end at once.
        var isClosed = false
    }

    /// A new stream of this downloader's ``DownloadEvent``s, from now until the stream is
    /// dropped or the downloader shuts down. Each call gets its own stream; a slow reader
    /// keeps the newest 1,024 events.
    public func events() -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DownloadEvent.self, bufferingPolicy: .bufferingNewest(1024))
        let id: Int? = listeners.withLock { listeners in
            guard !listeners.isClosed else { return nil }
            listeners.nextID += 1
            listeners.continuations[listeners.nextID] = continuation
            listenerCount.store(listeners.continuations.count, ordering: .releasing)
            return listeners.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            listeners.withLock { listeners in
                listeners.continuations[id] = nil
                listenerCount.store(listeners.continuations.count, ordering: .releasing)
            }
        }
        return stream
    }

    /// Sends `event` to every open stream. With none open (the usual case) it neither
    /// builds the event nor takes the streams' lock: this runs four times per transfer.
    /// A stream opened while an event is being sent may miss that one, as it would had it
    /// been opened a moment later.
    func emit(_ event: @autoclosure () -> DownloadEvent) {
        guard listenerCount.load(ordering: .acquiring) > 0 else { return }
        let continuations = listeners.withLock { Array($0.continuations.values) }
        guard !continuations.isEmpty else { return }
        let event = event()
        for continuation in continuations { continuation.yield(event) }
    }
}
