import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The network part of a download: one HTTP exchange (plus one Basic-auth retry), the
/// response checks, and the bounded body.
extension Downloader {
    /// A body that arrived whole and passed every check.
    struct TransferredBody: Sendable {
        var data: Data
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

    /// Runs the request of `operation` and returns its checked body or a typed error.
    func transfer(_ operation: DownloadOperation) async -> Result<TransferredBody, WebImageError> {
        let options = operation.requestOptions
        var request = DownloadRequest(url: operation.url, headers: HTTPHeaders(state.withLock { $0.headers.map { ($0.key, $0.value) } }))
        if let modifier = options.requestModifier {
            guard let modified = modifier.modified(request) else {
                log("request refused by the request modifier", operation.url)
                return .failure(.invalidDownloadOperation)
            }
            request = modified
        }
        guard Self.isDownloadable(request.url) else { return .failure(.invalidURL(request.url.absoluteString)) }
        guard let client = client(allowingInvalidCertificates: operation.key.allowsInvalidCertificates) else {
            return .failure(.invalidDownloadOperation)
        }

        emit(.started(operation.url))
        log("download started", operation.url)
        report(LoadProgress(receivedSize: 0, expectedSize: -1, url: operation.url), of: operation)
        let start = ContinuousClock.now
        var record = TransferRecord()
        let result: Result<(Data, DownloadResponse), WebImageError>
        do {
            result = .success(try await exchange(request, client: client, operation: operation, start: start, record: &record))
        } catch {
            result = .failure(Self.webImageError(from: error))
        }
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
        case .success(let (data, response)):
            emit(.finished(operation.url, metrics))
            log("download finished", operation.url, ["status": "\(response.statusCode)", "bytes": "\(data.count)", "ms": "\(metrics.totalTime.milliseconds)"])
            return .success(TransferredBody(data: data, response: response, metrics: metrics))
        case .failure(let error):
            log("download failed", operation.url, ["error": "\(error)"])
            return .failure(error)
        }
    }

    /// Sends the request and reads the checked body; answers a Basic challenge once.
    private func exchange(
        _ request: DownloadRequest,
        client: HTTPClient,
        operation: DownloadOperation,
        start: ContinuousClock.Instant,
        record: inout TransferRecord
    ) async throws -> (Data, DownloadResponse) {
        let mayAnswer = basicAuthorization != nil && !request.headers.contains(name: "Authorization")
        do {
            return try await send(request, client: client, operation: operation, start: start, answersBasicChallenge: mayAnswer, record: &record)
        } catch is ResponseReader.BasicChallenge {
            // SDWebImage answers a server's challenge once with the configured credential;
            // a second 401 is the final answer.
            var request = request
            if let basicAuthorization { request.headers.replaceOrAdd(name: "Authorization", value: basicAuthorization) }
            return try await send(request, client: client, operation: operation, start: start, answersBasicChallenge: false, record: &record)
        }
    }

    /// One HTTP exchange, read on its event loop by a ``ResponseReader``; the calling task
    /// resumes once, when the body is complete. Cancelling the task cancels the request,
    /// which closes its connection.
    private func send(
        _ request: DownloadRequest,
        client: HTTPClient,
        operation: DownloadOperation,
        start: ContinuousClock.Instant,
        answersBasicChallenge: Bool,
        record: inout TransferRecord
    ) async throws -> (Data, DownloadResponse) {
        try Task.checkCancellation()
        let outgoing = try HTTPClient.Request(
            url: request.url,
            method: request.method,
            headers: request.headers,
            body: request.body.map { .bytes($0) }
        )
        let reader = ResponseReader(
            downloader: self, operation: operation, requestURL: request.url, start: start,
            answersBasicChallenge: answersBasicChallenge
        )
        defer {
            reader.disarmHeadDeadline()
            record = reader.record
        }
        let eventLoop = client.eventLoopGroup.next()
        let task = client.execute(request: outgoing, delegate: reader, eventLoop: .delegate(on: eventLoop), deadline: nil, logger: nil)
        // The configured timeout is an idle limit, enforced by the client's connect and read
        // timeouts; this deadline only backs them up for a request that never gets a head.
        reader.armHeadDeadline(eventLoop.scheduleTask(in: config.timeout.timeAmount * 4) {
            task.fail(reason: HTTPClientError.deadlineExceeded)
        })
        let outcome = try await withTaskCancellationHandler {
            try await task.futureResult.get()
        } onCancel: {
            task.cancel()
        }
        try Task.checkCancellation()
        return (outcome.data, outcome.response)
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

    /// The HTTP client for this certificate policy, created on first use.
    func client(allowingInvalidCertificates insecure: Bool) -> HTTPClient? {
        state.withLock { state in
            guard !state.isShutDown else { return nil }
            if insecure {
                if state.insecureClient == nil { state.insecureClient = makeClient(allowingInvalidCertificates: true) }
                return state.insecureClient
            }
            if state.secureClient == nil { state.secureClient = makeClient(allowingInvalidCertificates: false) }
            return state.secureClient
        }
    }

    private func makeClient(allowingInvalidCertificates insecure: Bool) -> HTTPClient {
        let timeout = config.timeout.timeAmount
        var configuration = HTTPClient.Configuration(
            certificateVerification: insecure ? .none : .fullVerification,
            redirectConfiguration: config.maximumRedirects > 0
                ? .follow(max: config.maximumRedirects, allowCycles: false) : .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: timeout, read: timeout),
            decompression: .disabled
        )
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, config.maxConcurrentDownloads)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Maps whatever the transfer threw to the library's typed error.
    static func webImageError(from error: any Error) -> WebImageError {
        if let error = error as? WebImageError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout, .connectTimeout, .deadlineExceeded, .writeTimeout, .tlsHandshakeTimeout,
                 .getConnectionFromPoolTimeout:
                return .timedOut
            case .cancelled:
                return .cancelled
            case .redirectLimitReached:
                return .network("too many redirects")
            case .redirectCycleDetected:
                return .network("redirect loop")
            default:
                return .network(String(describing: error))
            }
        }
        return .network(String(describing: error))
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
    /// The duration as a NIO `TimeAmount` (nanosecond precision).
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Whole milliseconds, for logs.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
