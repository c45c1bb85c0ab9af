import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The network part of a download: one HTTP exchange (plus one Basic-auth retry), the
/// response checks, and the bounded body.
extension Downloader {
    /// A body that arrived whole and passed every check: in memory, or (streamed) in a
    /// committed file.
    struct TransferredBody: Sendable {
        /// The body; empty when it went to ``file``.
        var data: Data
        var file: DownloadOperation.StoredBody?
        var response: DownloadResponse
        var metrics: DownloadMetrics
    }

    /// What is known about a transfer so far, for its metrics.
    struct TransferRecord {
        var statusCode: Int?
        var bytesReceived = 0
        var timeToFirstByte: Duration?
        var redirectCount = 0
    }

    /// Builds and sends the request of `operation`, which just got a slot; the transfer
    /// then runs on an event loop and ends in ``transferEnded(_:_:)``. Returns the outcome
    /// of a transfer that ended before this call returned, for ``begin(_:)`` to end it
    /// without nesting calls. Called outside the lock.
    func beginTransfer(_ operation: DownloadOperation) -> Result<TransferredBody, WebImageError>? {
        let options = operation.requestOptions
        var request = DownloadRequest(url: operation.url, headers: headers.withLock { $0.requestHeaders })
        // The operation's URL was checked when its first caller subscribed; only a request
        // modifier can point the request elsewhere.
        if let modifier = options.requestModifier {
            guard let modified = modifier.modified(request) else {
                log("request refused by the request modifier", operation.url)
                return .failure(.invalidDownloadOperation)
            }
            guard Self.isDownloadable(modified.url) else { return .failure(.invalidURL(modified.url.absoluteString)) }
            request = modified
        }
        addStoredHeaders(to: &request, options: options)
        // Fails with `cancelled` when every caller left meanwhile.
        let client: HTTPClient
        switch transferClient(for: operation, url: request.url) {
        case .success(let chosen): client = chosen
        case .failure(let error): return .failure(error)
        }

        emit(.started(operation.url))
        log("download started", operation.url)
        report(LoadProgress(receivedSize: 0, expectedSize: -1, url: operation.url), of: operation)
        let answersChallenge = basicAuthorization != nil && !request.headers.contains(name: "Authorization")
        return send(request, client: client, operation: operation, start: ContinuousClock.now, answersBasicChallenge: answersChallenge)
    }

    /// What the downloader remembers for this request, after the request modifier (whose
    /// own headers win), as URLSession adds them below `HTTPShouldHandleCookies` and its
    /// cache: the jar's cookies with `handleCookies`, and the conditions of a revalidation.
    private func addStoredHeaders(to request: inout DownloadRequest, options: DownloadRequestOptions) {
        if options.handleCookies, !request.headers.contains(name: "Cookie"),
           let cookies = config.cookieJar.cookieHeader(for: request.url) {
            request.headers.add(name: "Cookie", value: cookies)
        }
        if options.cachedData != nil {
            if let given = options.cachedDataValidators {
                given.addConditions(to: &request.headers)
            } else {
                validators.addConditions(for: request.url, to: &request.headers)
            }
        }
    }

    /// Sends one HTTP exchange, read on its event loop by a ``ResponseReader``. When the
    /// server answers with a Basic challenge the downloader can meet, sends it once more
    /// with the credential; otherwise ends the transfer with the outcome. Returns the outcome
    /// when the exchange ended before this call returned (the request could not be built, or
    /// the client rejected it at once): the transfer is then the caller's to end.
    private func send(
        _ request: DownloadRequest,
        client: HTTPClient,
        operation: DownloadOperation,
        start: ContinuousClock.Instant,
        answersBasicChallenge: Bool
    ) -> Result<TransferredBody, WebImageError>? {
        let outgoing: HTTPClient.Request
        do {
            outgoing = try HTTPClient.Request(url: request.url, method: request.method, headers: request.headers, body: request.body.map { .bytes($0) })
        } catch {
            let failure = Self.webImageError(from: error)
            return exchangeOutcome(operation, start: start, record: TransferRecord(), result: .failure(failure))
        }
        let reader = ResponseReader(
            downloader: self, operation: operation, requestURL: request.url, start: start,
            answersBasicChallenge: answersBasicChallenge
        )
        // The loop of the connection it will likely use, so that the delegate and the
        // connection are on one thread (see LoopAffinity).
        let eventLoop = loopAffinity.loop(in: client.eventLoopGroup)
        // The configured timeout is an idle limit: the client's connect time-out until the
        // request is sent, then the reader's watchdog. The whole download's limit, when set,
        // counts from the transfer's start, so a retry with credentials gets what is left.
        let deadline = config.maximumDuration.map { limit in NIODeadline.now() + TimeAmount(limit - (ContinuousClock.now - start)) }
        let task = client.execute(request: outgoing, delegate: reader, eventLoop: .delegate(on: eventLoop), deadline: deadline, logger: nil)
        if !operation.keep(task) { task.cancel() }
        task.futureResult.whenComplete { result in
            self.loopAffinity.transferEnded(on: eventLoop)
            reader.stopWatchdog()
            if case .failure = result { reader.abandonBody() }
            if case .success(let exchange) = result, let sink = exchange.sink {
                // The body is in the sink's temporary file: committing it (fsync, rename) is
                // blocking, so it runs on the sink's lane, and the transfer ends after it.
                sink.finish(on: eventLoop, stillWanted: { !operation.isRequestStopped }).whenComplete { committed in
                    let stored = committed.map { fileURL in
                        var outcome = exchange
                        outcome.sink = nil
                        outcome.file = DownloadOperation.StoredBody(url: fileURL, byteCount: exchange.byteCount, destination: sink.destination)
                        return outcome
                    }
                    let outcome = self.exchangeOutcome(operation, start: start, record: reader.record, result: stored.mapError { Self.webImageError(from: $0) })
                    if reader.endsOutsideSend(outcome) { self.transferEnded(operation, outcome) }
                }
                return
            }
            if case .failure(let error) = result, error is ResponseReader.BasicChallenge, let authorization = self.basicAuthorization {
                // SDWebImage answers a server's challenge once with the configured
                // credential; a second 401 is the final answer.
                var retry = request
                retry.headers.replaceOrAdd(name: "Authorization", value: authorization)
                if let outcome = self.send(retry, client: client, operation: operation, start: start, answersBasicChallenge: false) {
                    self.transferEnded(operation, outcome)
                }
                return
            }
            let outcome = self.exchangeOutcome(operation, start: start, record: reader.record, result: result.mapError { Self.webImageError(from: $0) })
            if reader.endsOutsideSend(outcome) { self.transferEnded(operation, outcome) }
        }
        return reader.finishSending()
    }

    /// Records the transfer's metrics, events and log line; returns what to end it with.
    private func exchangeOutcome(
        _ operation: DownloadOperation,
        start: ContinuousClock.Instant,
        record: TransferRecord,
        result: Result<ResponseReader.Outcome, WebImageError>
    ) -> Result<TransferredBody, WebImageError> {
        let metrics = DownloadMetrics(
            url: operation.url,
            statusCode: record.statusCode,
            bytesReceived: record.bytesReceived,
            timeToFirstByte: record.timeToFirstByte,
            totalTime: ContinuousClock.now - start,
            redirectCount: record.redirectCount
        )
        emit(.stopped(operation.url, metrics))
        switch result {
        case .success(let outcome):
            emit(.finished(operation.url, metrics))
            log("download finished", operation.url, ["status": "\(outcome.response.statusCode)", "bytes": "\(outcome.byteCount)", "ms": "\(metrics.totalTime.milliseconds)"])
            return .success(TransferredBody(data: outcome.data, file: outcome.file, response: outcome.response, metrics: metrics))
        case .failure(let error):
            log("download failed", operation.url, ["error": "\(error)"])
            return .failure(error)
        }
    }

    /// SDWebImage's response checks, in its order: the modifier, the status code, the
    /// content type, then 304 without cached data.
    func checkedResponse(_ response: DownloadResponse, options: DownloadRequestOptions) throws -> DownloadResponse {
        var response = response
        if let modifier = options.responseModifier {
            guard let modified = modifier.modified(response) else { throw WebImageError.invalidDownloadResponse }
            response = modified
        }
        let code = response.statusCode
        // A 304 answering a revalidation (cached data given) is the expected outcome, as when
        // URLSession turns it into a 200 from its cache.
        let revalidated = code == 304 && options.cachedData != nil
        guard revalidated || config.acceptableStatusCodes.contains(code) else {
            throw WebImageError.invalidDownloadStatusCode(code)
        }
        if let acceptable = config.acceptableContentTypes, let type = response.mimeType,
           !acceptable.contains(where: { $0.caseInsensitiveCompare(type) == .orderedSame }) {
            throw WebImageError.invalidDownloadContentType(type)
        }
        if code == 304, options.cachedData == nil { throw WebImageError.cacheNotModified }
        return response
    }

    private var basicAuthorization: String? {
        guard let username = config.username else { return nil }
        let credentials = Data("\(username):\(config.password ?? "")".utf8).base64EncodedString()
        return "Basic \(credentials)"
    }

    /// Maps whatever the transfer threw to the library's typed error.
    static func webImageError(from error: any Error) -> WebImageError {
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout, .connectTimeout, .deadlineExceeded, .writeTimeout, .tlsHandshakeTimeout,
                 .getConnectionFromPoolTimeout:
                return .timedOut
            case .cancelled:
                return .cancelled
            case .redirectLimitReached:
                return .network("too many redirects", underlying: error)
            case .redirectCycleDetected:
                return .network("redirect loop", underlying: error)
            case .proxyAuthenticationRequired:
                return .proxyAuthenticationRequired
            case .invalidProxyResponse:
                return .network("the proxy refused to open a tunnel to the origin", underlying: error)
            case .httpProxyHandshakeTimeout:
                return .timedOut
            default:
                break
            }
        }
        return WebImageError(error)
    }

    /// Logs one request event at debug level: the URL without credentials, query or
    /// fragment, and no header values. Builds nothing unless debug logging is on, since it
    /// runs several times per download.
    func log(_ message: @autoclosure () -> Logger.Message, _ url: URL, _ metadata: @autoclosure () -> [String: String] = [:]) {
        guard config.logger.logLevel <= .debug else { return }
        var fields: Logger.Metadata = ["url": "\(Self.redacted(url))"]
        for (key, value) in metadata() { fields[key] = "\(value)" }
        config.logger.debug(message(), metadata: fields)
    }

    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(unparsable URL)" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "(unparsable URL)"
    }
}

extension Duration {
    /// The duration as a NIO `TimeAmount` (nanosecond precision). One too long for 64-bit
    /// nanoseconds (about 292 years) becomes the longest amount, which NIO treats as "never".
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !carry else { return .nanoseconds(seconds < 0 ? .min : .max) }
        return .nanoseconds(total)
    }

    /// Whole milliseconds, for logs.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
