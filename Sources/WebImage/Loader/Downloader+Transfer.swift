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
    private struct TransferRecord {
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

    /// Sends the request, checks the response and reads the body.
    private func exchange(
        _ request: DownloadRequest,
        client: HTTPClient,
        operation: DownloadOperation,
        start: ContinuousClock.Instant,
        record: inout TransferRecord
    ) async throws -> (Data, DownloadResponse) {
        var request = request
        var response = try await send(request, client: client)
        if response.status == .unauthorized, let authorization = basicAuthorization,
           !request.headers.contains(name: "Authorization"), Self.acceptsBasic(response.headers) {
            // SDWebImage answers a server's challenge once with the configured credential;
            // a second 401 is the final answer.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            request.headers.replaceOrAdd(name: "Authorization", value: authorization)
            response = try await send(request, client: client)
        }
        record.timeToFirstByte = ContinuousClock.now - start
        record.statusCode = Int(response.status.code)
        record.redirectCount = max(0, response.history.count - 1)

        let head = try checkedResponse(
            DownloadResponse(url: response.url ?? request.url, statusCode: Int(response.status.code), headers: response.headers),
            options: operation.requestOptions
        )
        let expected = head.expectedContentLength
        emit(.receivedResponse(operation.url, statusCode: head.statusCode, expectedSize: expected ?? -1))
        if head.statusCode == 304, let cached = operation.requestOptions.cachedData {
            return (cached, head)
        }
        let limit = config.maximumResponseSize
        if let expected, expected > limit { throw WebImageError.responseTooLarge(limit: limit) }
        report(LoadProgress(receivedSize: 0, expectedSize: expected ?? -1, url: operation.url), of: operation)

        var data = Data()
        data.reserveCapacity(min(expected ?? 0, limit))
        var throttle = ProgressThrottle(expectedSize: expected, minimumInterval: config.minimumProgressInterval)
        let partials = PartialImageSource(operation: operation, makeDecoder: config.partialImageDecoder)
        for try await chunk in response.body {
            guard chunk.readableBytes <= limit - data.count else { throw WebImageError.responseTooLarge(limit: limit) }
            chunk.withUnsafeReadableBytes { bytes in
                if let base = bytes.baseAddress { data.append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
            }
            record.bytesReceived = data.count
            if throttle.shouldReport(receivedSize: data.count) {
                report(LoadProgress(receivedSize: data.count, expectedSize: expected ?? -1, url: operation.url), of: operation, data: data, partials: partials)
            }
        }
        try Task.checkCancellation()
        report(LoadProgress(receivedSize: data.count, expectedSize: expected ?? data.count, url: operation.url), of: operation, partials: partials)
        return (data, head)
    }

    /// SDWebImage's response checks, in its order: the modifier, the status code, the
    /// content type, then 304 without cached data.
    private func checkedResponse(_ response: DownloadResponse, options: DownloadRequestOptions) throws -> DownloadResponse {
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

    private func send(_ request: DownloadRequest, client: HTTPClient) async throws -> HTTPClientResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = request.method
        outgoing.headers = request.headers
        if let body = request.body { outgoing.body = .bytes(body) }
        // The configured timeout is an idle limit, enforced by the client's connect and read
        // timeouts; the deadline only backs them up for a request that never gets a head.
        return try await client.execute(outgoing, deadline: .now() + config.timeout.timeAmount * 4)
    }

    private var basicAuthorization: String? {
        guard let username = config.username else { return nil }
        let credentials = Data("\(username):\(config.password ?? "")".utf8).base64EncodedString()
        return "Basic \(credentials)"
    }

    private static func acceptsBasic(_ headers: HTTPHeaders) -> Bool {
        let challenges = headers[canonicalForm: "WWW-Authenticate"]
        return challenges.isEmpty || challenges.contains { $0.lowercased().hasPrefix("basic") }
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
