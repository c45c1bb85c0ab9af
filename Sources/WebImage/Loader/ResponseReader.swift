import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Reads the response of one HTTP exchange on the request's event loop (an
/// AsyncHTTPClient response delegate): checks the head, bounds and collects the body into
/// one `Data`, and reports progress and partial images as chunks arrive, so a download
/// costs one hop to Swift concurrency (its end) instead of one per head and body chunk.
///
/// It also enforces the downloader's idle time-out (``Downloader/Configuration/timeout``):
/// one watchdog timer per transfer, armed when the request is sent, fails the exchange
/// when nothing arrived (head or body) for that long. The HTTP client's own read time-out
/// is off: it re-arms a timer on every socket read, the largest single item in a
/// download's profile (Benchmarks/README.md, "Downloader"), and any byte resets it, so a
/// head trickled in a byte at a time never trips it; the watchdog counts only whole heads
/// and body parts.
///
/// AsyncHTTPClient calls a delegate on the event loop the task is pinned to (the
/// downloader passes `.delegate(on:)`, which redirects keep), one call at a time; the lock
/// only makes that proof unnecessary, it is never contended. Handlers and modifiers run
/// outside it. Thread-safe.
final class ResponseReader: HTTPClientResponseDelegate {
    /// The most a body buffer reserves before its bytes arrive.
    static let largestReservation = 4 << 20

    /// What the exchange produced: the checked response and its whole body (the cached
    /// data for a revalidated 304), or the sink the body was streamed into.
    struct Outcome: Sendable {
        var data: Data
        var response: DownloadResponse
        /// Set when the body went to a destination instead of ``data`` (then empty): the
        /// sink still has to commit it.
        var sink: BodyFileSink?
        /// Set once the sink committed the body: where it is.
        var file: DownloadOperation.StoredBody?
        /// The body's length, wherever it went.
        var byteCount: Int
    }

    /// The server asked for Basic credentials the downloader has and the request lacks;
    /// thrown from the head (closing that connection) so the caller sends again with them.
    struct BasicChallenge: Error {}

    private enum Phase {
        case awaitingHead
        case reading
        /// Writing the body to a destination as it arrives (nobody waiting wants it in memory).
        case streaming(BodyFileSink)
        /// A 304 answering a revalidation: the body (normally none) is ignored.
        case notModified(Data)
    }

    /// Where the idle watchdog is.
    private enum Watchdog {
        /// The request is not sent yet.
        case unarmed
        /// Being scheduled (or rescheduled) outside the lock.
        case arming
        case armed(Scheduled<Void>)
        /// The exchange ended, or the watchdog failed it: nothing more to watch.
        case stopped
    }

    private struct State {
        var phase = Phase.awaitingHead
        var record = Downloader.TransferRecord()
        var visits = 0
        var finalURL: URL?
        var response: DownloadResponse?
        var expected: Int?
        var data = Data()
        /// Body bytes received, whether kept in ``data`` or streamed.
        var received = 0
        var throttle: ProgressThrottle
        var watchdog = Watchdog.unarmed
        /// When the request was sent or a head or body part last arrived.
        var lastActivity = NIODeadline.now()
        var isSending = true
        var endedWhileSending: Result<Downloader.TransferredBody, WebImageError>?
    }

    private let downloader: Downloader
    private let operation: DownloadOperation
    private let requestURL: URL
    private let start: ContinuousClock.Instant
    private let answersBasicChallenge: Bool
    private let limit: Int
    /// The idle time-out: the longest silence before the exchange fails with a time-out.
    private let idleLimit: TimeAmount
    private let partials: PartialImageSource
    private let state: LockedValue<State>

    /// A reader for one exchange of `operation`. With `answersBasicChallenge`, a 401 that
    /// accepts Basic fails with ``BasicChallenge`` instead of the status error.
    init(downloader: Downloader, operation: DownloadOperation, requestURL: URL, start: ContinuousClock.Instant, answersBasicChallenge: Bool) {
        self.downloader = downloader
        self.operation = operation
        self.requestURL = requestURL
        self.start = start
        self.answersBasicChallenge = answersBasicChallenge
        limit = downloader.config.maximumResponseSize
        idleLimit = downloader.config.timeout.timeAmount
        // Partial images reach callers through their progress handlers only.
        let wantsPartials = operation.isProgressWanted && downloader.wantsPartialImages(operation)
        partials = PartialImageSource(isWanted: wantsPartials, makeDecoder: downloader.config.partialImageDecoder)
        state = LockedValue(State(throttle: ProgressThrottle(expectedSize: nil, minimumInterval: downloader.config.minimumProgressInterval)))
    }

    /// What is known about the transfer so far, for its metrics.
    var record: Downloader.TransferRecord { state.withLock { $0.record } }

    /// The request is on the wire: arms the idle watchdog (a redirect's request, sent by
    /// the same reader, only counts as activity).
    func didSendRequest(task: HTTPClient.Task<Outcome>) {
        let now = NIODeadline.now()
        let arms = state.withLock { state in
            state.lastActivity = now
            guard case .unarmed = state.watchdog else { return false }
            state.watchdog = .arming
            return true
        }
        if arms { armWatchdog(task, at: now + idleLimit) }
    }

    /// Stops the idle watchdog, for an exchange that ended (however it ended).
    func stopWatchdog() {
        state.withLock { state -> Scheduled<Void>? in
            defer { state.watchdog = .stopped }
            guard case .armed(let scheduled) = state.watchdog else { return nil }
            return scheduled
        }?.cancel()
    }

    /// Schedules the watchdog's next look at `deadline`, on the task's event loop (where
    /// the delegate runs: no thread is woken for it).
    private func armWatchdog(_ task: HTTPClient.Task<Outcome>, at deadline: NIODeadline) {
        let scheduled = task.eventLoop.scheduleTask(deadline: deadline) { self.watch(task) }
        let stopped = state.withLock { state in
            guard case .arming = state.watchdog else { return true }
            state.watchdog = .armed(scheduled)
            return false
        }
        if stopped { scheduled.cancel() }
    }

    /// Fails the exchange when it was silent for the idle limit; otherwise looks again
    /// when it would be. One timer per transfer, re-armed only when it fires, instead of
    /// one per read.
    private func watch(_ task: HTTPClient.Task<Outcome>) {
        let now = NIODeadline.now()
        let next: NIODeadline?? = state.withLock { state in
            guard case .armed = state.watchdog else { return .none }
            let due = state.lastActivity + idleLimit
            guard due > now else {
                state.watchdog = .stopped
                return .some(nil)
            }
            state.watchdog = .arming
            return .some(due)
        }
        switch next {
        case .none: return
        case .some(nil): task.fail(reason: HTTPClientError.readTimeout)
        case .some(let due?): armWatchdog(task, at: due)
        }
    }

    /// Hands the exchange's outcome to the downloader's `send` when that call is still
    /// running: a request the client rejects while building it (an invalid header) has
    /// already failed, and on its own event loop the completion then runs inside `send`.
    /// `false` means the outcome was kept for ``finishSending()`` and the caller must not
    /// end the transfer itself.
    func endsOutsideSend(_ outcome: Result<Downloader.TransferredBody, WebImageError>) -> Bool {
        state.withLock { state in
            guard state.isSending else { return true }
            state.endedWhileSending = outcome
            return false
        }
    }

    /// Marks the end of `send`; returns the outcome of an exchange that ended inside it.
    func finishSending() -> Result<Downloader.TransferredBody, WebImageError>? {
        state.withLock { state in
            state.isSending = false
            defer { state.endedWhileSending = nil }
            return state.endedWhileSending
        }
    }

    /// Called for every response head, redirects included: counts them, remembers the
    /// URL that answered last, and with `handleCookies` stores the cookies each one sets.
    func didVisitURL(task: HTTPClient.Task<Outcome>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        if let target = unusableRedirectTarget(of: head, from: request.url) {
            // Called on the task's loop before the client decides to follow, so the failed
            // task follows nothing (the client traps on the port of such a URL).
            task.fail(reason: WebImageError.invalidURL("a redirect to \(Downloader.redacted(target)), a port no connection can use"))
            return
        }
        let now = NIODeadline.now()
        state.withLock { state in
            state.lastActivity = now
            state.visits += 1
            state.finalURL = request.url
        }
        if operation.requestOptions.handleCookies {
            // Not `canonicalForm`, which splits at commas: an `Expires` date has one.
            let cookies = head.headers["Set-Cookie"]
            if !cookies.isEmpty { downloader.config.cookieJar.setCookies(fromHeaders: cookies, for: request.url) }
        }
    }

    /// The target of a redirect the HTTP client would follow to a URL whose port is out of
    /// range: AsyncHTTPClient follows an http(s) `Location` as it is, and a `:70000` on an
    /// IP address traps in its conversion to a 16-bit port, ending the process. A hostile
    /// origin needed nothing but that header. (A pinned download follows no redirect: its
    /// caller reads the `Location` and checks it.)
    private func unusableRedirectTarget(of head: HTTPResponseHead, from url: URL) -> URL? {
        guard operation.requestOptions.pinnedAddress == nil, downloader.config.maximumRedirects > 0,
              Self.redirectStatuses.contains(head.status.code),
              let location = head.headers.first(name: "Location"),
              let target = URL(string: location, relativeTo: url)?.absoluteURL,
              let scheme = target.scheme, Downloader.isHTTPScheme(scheme)
        else { return nil }
        return target.hasUsablePort ? nil : target
    }

    /// The statuses AsyncHTTPClient follows a `Location` of (its `extractRedirectTarget`).
    static let redirectStatuses: Set<UInt> = [301, 302, 303, 304, 305, 307, 308]

    func didReceiveHead(task: HTTPClient.Task<Outcome>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let now = ContinuousClock.now
        let activity = NIODeadline.now()
        let url = state.withLock { state in
            state.lastActivity = activity
            state.record.timeToFirstByte = now - start
            state.record.statusCode = Int(head.status.code)
            state.record.redirectCount = max(0, state.visits - 1)
            return state.finalURL ?? requestURL
        }
        // Only the request's own origin is answered: a 401 from a host a redirect led to
        // would otherwise have the credential sent back to the first host, uninvited.
        if answersBasicChallenge, head.status == .unauthorized, Self.acceptsBasic(head.headers),
           Self.sameOrigin(url, requestURL) {
            return task.eventLoop.makeFailedFuture(BasicChallenge())
        }
        let response: DownloadResponse
        do {
            response = try downloader.checkedResponse(
                DownloadResponse(url: url, statusCode: Int(head.status.code), headers: head.headers),
                options: operation.requestOptions
            )
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        let expected = response.expectedContentLength
        downloader.emit(.receivedResponse(operation.url, statusCode: response.statusCode, expectedSize: expected ?? -1))
        if response.statusCode == 304, let cached = operation.requestOptions.cachedData {
            state.withLock { state in
                state.response = response
                state.phase = .notModified(cached)
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }
        if let expected, expected > limit {
            return task.eventLoop.makeFailedFuture(WebImageError.responseTooLarge(limit: limit))
        }
        // Decided at the head, when the body is about to arrive: a caller that joins later
        // and wants the bytes or an image gets them read back from the committed file.
        let sink = downloader.streamingDestination(of: operation).map {
            BodyFileSink(destination: $0, bufferSize: downloader.config.streamingBufferSize)
        }
        state.withLock { state in
            state.response = response
            state.expected = expected
            state.throttle = ProgressThrottle(expectedSize: expected, minimumInterval: downloader.config.minimumProgressInterval)
            if let sink {
                state.phase = .streaming(sink)
            } else {
                // What the server announces, up to 4 MiB: past that the buffer grows with the
                // bytes that arrive. A server announcing 100 MiB and sending nothing made
                // each download reserve the whole limit (64 of them, 6.4 GB of address
                // space, which a strict overcommit setting refuses).
                state.data.reserveCapacity(min(expected ?? 0, limit, Self.largestReservation))
                state.phase = .reading
            }
        }
        downloader.report(LoadProgress(receivedSize: 0, expectedSize: expected ?? -1, url: operation.url), of: operation)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    /// What one body chunk leads to, decided under the lock and done outside it.
    private struct BodyStep {
        var progress: LoadProgress?
        var data: Data?
        var sink: BodyFileSink?
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Outcome>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let wantsData = partials.isActive
        let now = NIODeadline.now()
        let step: Result<BodyStep, WebImageError> = state.withLock { state in
            state.lastActivity = now
            let sink: BodyFileSink?
            switch state.phase {
            case .reading: sink = nil
            case .streaming(let streaming): sink = streaming
            case .awaitingHead, .notModified: return .success(BodyStep())
            }
            guard buffer.readableBytes <= limit - state.received else { return .failure(.responseTooLarge(limit: limit)) }
            if sink == nil {
                buffer.withUnsafeReadableBytes { bytes in
                    if let base = bytes.baseAddress { state.data.append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
                }
            }
            state.received += buffer.readableBytes
            state.record.bytesReceived = state.received
            var step = BodyStep(sink: sink)
            if state.throttle.shouldReport(receivedSize: state.received) {
                step.progress = LoadProgress(receivedSize: state.received, expectedSize: state.expected ?? -1, url: operation.url)
                if wantsData, sink == nil { step.data = state.data }
            }
            return .success(step)
        }
        switch step {
        case .success(let step):
            if let progress = step.progress { downloader.report(progress, of: operation, data: step.data, partials: partials) }
            // The sink's future completes when the chunk is on its way to disk: until then
            // AsyncHTTPClient reads nothing more from the socket (back-pressure).
            return step.sink?.append(buffer, on: task.eventLoop) ?? task.eventLoop.makeSucceededVoidFuture()
        case .failure(let error):
            // Failing the future stops the transfer and closes its connection.
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didReceiveError(task: HTTPClient.Task<Outcome>, _ error: any Error) {}

    func didFinishRequest(task: HTTPClient.Task<Outcome>) throws -> Outcome {
        let (phase, data, received, response, expected) = state.withLock { state in
            defer { state.data = Data() }
            return (state.phase, state.data, state.received, state.response, state.expected)
        }
        guard let response else { throw WebImageError.invalidDownloadResponse }
        if case .notModified(let cached) = phase { return Outcome(data: cached, response: response, byteCount: cached.count) }
        if (200..<300).contains(response.statusCode) { downloader.validators.record(response.headers, for: requestURL) }
        downloader.report(
            LoadProgress(receivedSize: received, expectedSize: expected ?? received, url: operation.url),
            of: operation,
            partials: partials
        )
        if case .streaming(let sink) = phase { return Outcome(data: Data(), response: response, sink: sink, byteCount: received) }
        return Outcome(data: data, response: response, byteCount: received)
    }

    /// The exchange failed (or was cancelled): a body being streamed is aborted, so its
    /// destination keeps nothing of it.
    func abandonBody() {
        let phase = state.withLock { state in
            defer { state.phase = .awaitingHead }
            return state.phase
        }
        if case .streaming(let sink) = phase { sink.abort() }
    }

    /// Whether the 401 challenges for Basic credentials: a 401 must say which schemes it
    /// takes (RFC 9110, 11.6.1), and one that names none asks for nothing we may send.
    private static func acceptsBasic(_ headers: HTTPHeaders) -> Bool {
        headers[canonicalForm: "WWW-Authenticate"].contains { $0.lowercased().hasPrefix("basic") }
    }

    /// Whether `a` and `b` have one scheme, host and port.
    private static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && a.port == b.port
    }
}
