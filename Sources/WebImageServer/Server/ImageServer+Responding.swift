import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import WebImage

/// The flow of one image request, from the request line to the response.
extension ImageServer {
    /// A finished image for the response.
    struct Delivery: Sendable {
        var entry: ByteCache.Entry
        var varies: Bool
    }

    /// Answers one image request; never throws: every failure becomes its status.
    /// `connection`, when known, lets a job be abandoned once its client has gone.
    func respond(to request: Request, prefix: String, connection: ImageRequestContext? = nil) async -> Response {
        let start = ContinuousClock.now
        metrics.inFlight.increment()
        defer {
            metrics.inFlight.decrement()
            metrics.requestDuration.record(ContinuousClock.now - start)
        }
        let response: Response
        do {
            let delivery = try await deliver(request, prefix: prefix, start: start, connection: connection)
            response = success(delivery, for: request)
            metrics.recordResponse(status: response.status.code, errorLabel: nil)
        } catch {
            let failure = error as? ImageServerError ?? .internalFailure(String(describing: error))
            // Refusals the client is told less about than the operator (``ImageServerError/detail``)
            // are logged too.
            if failure.status >= 500 || failure.detail != nil {
                logger.warning("\(failure)", metadata: ["path": "\(request.uri.path.prefix(300))"])
            }
            metrics.recordResponse(status: failure.status, errorLabel: failure.label)
            response = Self.failure(failure, isHead: request.method == .head)
        }
        return withCORS(response)
    }

    /// imgproxy's CORS headers (`IMGPROXY_ALLOW_ORIGIN`), on every answer to an image
    /// request (failures too, as imgproxy sets them before it processes), when
    /// ``Configuration/allowOrigin`` is set.
    func addCORS(to headers: inout HTTPFields) {
        guard let origin = configuration.allowOrigin else { return }
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlAllowMethods] = "GET, OPTIONS"
    }

    func withCORS(_ response: Response) -> Response {
        guard configuration.allowOrigin != nil else { return response }
        var response = response
        addCORS(to: &response.headers)
        return response
    }

    /// Verify, look up, parse, and on a miss fetch and process under the time-outs.
    private func deliver(
        _ request: Request,
        prefix: String,
        start: ContinuousClock.Instant,
        connection: ImageRequestContext?
    ) async throws -> Delivery {
        var target = request.uri.path
        if !prefix.isEmpty, target.hasPrefix(prefix) { target.removeFirst(prefix.count) }
        let signedPart = try verifiedSignedPart(of: target, headers: request.headers)
        let negotiates = configuration.autoWebP || configuration.autoAVIF
        let offered = negotiates ? offeredFormats(accept: request.headers[.accept]) : []

        // A hit in memory needs no parse: its key was made from the same signed part by a
        // request that parsed and validated it in this process. This is the hot path of a
        // warm service, and the parse (percent-decoding, URL parsing) would be most of it.
        if resultCache.isEnabled, let hit = memoryHit(signedPart, offered: offered, negotiates: negotiates) {
            metrics.recordCacheHit(.memory)
            return hit
        }

        let path = try ProcessingPath(parsing: target)
        try processor.validate(path.options)
        let variant = ResultVariant(explicit: path.options.format, offered: offered, negotiates: negotiates)
        let key = variant.key(for: signedPart)
        let varies = variant.varies

        // The disk lookup too runs within the request's time: on a stalled disk (a hard NFS
        // mount of the shared folder) it waited without limit, with no 503 and the
        // connection counted as the server's time, until every client slot was taken.
        let remaining = configuration.timeout - (ContinuousClock.now - start)
        let watch = await connection?.connectionWatch()
        let entry = try await withDeadline(remaining, timeoutError: .processingTimedOut, abandonedWhenClosed: watch) {
            if self.resultCache.isEnabled {
                if let (entry, level) = try await self.cached(key, in: self.resultCache) {
                    self.metrics.recordCacheHit(level)
                    return entry
                }
                self.metrics.cacheMisses.increment()
            }
            return try await self.jobs.value(forKey: key) {
                try await self.produce(path, variant: variant, cacheKey: key)
            }
        }
        return Delivery(entry: entry, varies: varies)
    }

    /// The part of `target` its signature signs, once the secret and the signature are
    /// checked: the signature first, as imgproxy, so a URL that is not signed learns nothing
    /// about its options (a 403, never a 400 naming one).
    func verifiedSignedPart(of target: String, headers: HTTPFields) throws(ImageServerError) -> Substring {
        if let secret = configuration.secret, !URLSigner.authorizes(headers[.authorization], secret: secret) {
            throw .badSecret
        }
        let (signature, signedPart) = try ProcessingPath.signatureAndSignedPart(of: target)
        if verifiesSignatures, !signer.isValid(signature: signature, for: signedPart) {
            throw .badSignature("the signature does not match the URL")
        }
        return signedPart
    }

    /// The whole answer to a request that needs no waiting: a result in memory, or a 429
    /// while the queue is full. `nil` when the request must take the full path (a miss with
    /// room in the queue, or anything to refuse otherwise: the full path gives its status).
    /// ``ImmediateResponseHandler`` answers with it on the event loop; it makes the same checks in
    /// the same order as ``respond(to:prefix:connection:)`` and counts the same.
    func immediateResponse(target: String, method: HTTPRequest.Method, headers: HTTPFields) -> (head: HTTPResponse, body: ByteBuffer?)? {
        guard var answer = immediateAnswer(target: target, method: method, headers: headers) else { return nil }
        addCORS(to: &answer.head.headerFields)
        return answer
    }

    /// ``immediateResponse(target:method:headers:)`` before the CORS headers.
    private func immediateAnswer(target: String, method: HTTPRequest.Method, headers: HTTPFields) -> (head: HTTPResponse, body: ByteBuffer?)? {
        guard method == .get || method == .head, let signedPart = try? verifiedSignedPart(of: target, headers: headers) else {
            return nil
        }
        let start = ContinuousClock.now
        let isHead = method == .head
        let negotiates = configuration.autoWebP || configuration.autoAVIF
        let offered = negotiates ? offeredFormats(accept: headers[.accept]) : []
        if resultCache.levels.contains(.memory), let hit = memoryHit(signedPart, offered: offered, negotiates: negotiates) {
            let answer = responseParts(hit, requestHeaders: headers, isHead: isHead)
            metrics.recordCacheHit(.memory)
            metrics.recordResponse(status: answer.head.status.code, errorLabel: nil)
            metrics.requestDuration.record(ContinuousClock.now - start)
            return answer
        }
        // Overloaded, a request that will be refused a worker is refused here, after the
        // URL and its options are checked as the full path checks them (a 400 stays a 400),
        // and unless a disk level might still hold its result (a read that must not block
        // the event loop). Under a flood of retries the refusals are most of the work, and
        // here each costs a fraction of the full path's.
        // A request whose result a job is already making joins that job on the full path
        // without a queue place, so it is not refused either.
        guard queue.isFull, !resultCache.hasDiskLevel,
              let path = try? ProcessingPath(parsing: target), (try? processor.validate(path.options)) != nil,
              !jobs.isInFlight(forKey: ResultVariant(explicit: path.options.format, offered: offered, negotiates: negotiates).key(for: signedPart))
        else { return nil }
        if resultCache.isEnabled { metrics.cacheMisses.increment() }
        let refusal = ImageServerError.queueFull
        metrics.recordResponse(status: refusal.status, errorLabel: refusal.label)
        metrics.requestDuration.record(ContinuousClock.now - start)
        return Self.failureParts(refusal, isHead: isHead)
    }

    /// The result made for `signedPart` that this client may have, from memory: the one
    /// whose format the URL fixed (or negotiation is off), else the one negotiated for what
    /// the client offers.
    private func memoryHit(_ signedPart: Substring, offered: [ImageFormat], negotiates: Bool) -> Delivery? {
        let fixed = ResultVariant(explicit: nil, offered: [], negotiates: false)
        if let entry = resultCache.memoryEntry(forKey: fixed.key(for: signedPart)) {
            return Delivery(entry: entry, varies: false)
        }
        guard negotiates else { return nil }
        let negotiated = ResultVariant(explicit: nil, offered: offered, negotiates: true)
        return resultCache.memoryEntry(forKey: negotiated.key(for: signedPart)).map { Delivery(entry: $0, varies: true) }
    }

    /// The job behind a cache miss: a worker slot, the source, the processing, the store.
    private func produce(_ path: ProcessingPath, variant: ResultVariant, cacheKey: String) async throws -> ByteCache.Entry {
        // The request looked in the cache before it joined the jobs in flight; a job for the
        // same result may have stored it and ended in between (the disk lookup alone is a
        // thread hop). Looking again here, once per job, means a result is made once.
        if resultCache.isEnabled, let (entry, _) = try await cached(cacheKey, in: resultCache) {
            return entry
        }
        let queued = ContinuousClock.now
        // Cancelled in the queue (by the time-out, or because the client went): thrown on.
        try await queue.enter()
        defer { queue.leave() }
        metrics.queueDuration.record(ContinuousClock.now - queued)

        let source = try await sourceBytes(path.source)
        let processingStart = ContinuousClock.now
        let entry = try await onWorkerThread {
            let output = try self.processor.process(source, options: path.options, format: variant.format, negotiated: variant.negotiated)
            let etag = self.configuration.useETag ? ByteCache.Entry.etag(of: output.data) : nil
            let filename = Self.suggestedFilename(source: path.source, format: output.format)
            let entry = ByteCache.Entry(data: output.data, format: output.format, etag: etag, filename: filename)
            self.resultCache.store(entry, forKey: cacheKey)
            return entry
        }
        metrics.processingDuration.record(ContinuousClock.now - processingStart)
        return entry
    }

    /// The source's bytes: from the source cache, or fetched within the download time-out.
    private func sourceBytes(_ url: URL) async throws -> Data {
        let key = url.absoluteString
        if sourceCache.isEnabled, let (entry, _) = try await cached(key, in: sourceCache) {
            return entry.data
        }
        // Each job waits at most the download time-out, joined or not; the shared fetch is
        // cancelled when its last waiter leaves.
        return try await withDeadline(configuration.downloadTimeout, timeoutError: .downloadTimedOut) {
            try await self.sourceFetches.value(forKey: key) { try await self.fetchAndStore(url, key: key) }
        }
    }

    /// One fetch of a source from its origin, counted and stored in the source cache once,
    /// however many jobs wait for it.
    private func fetchAndStore(_ url: URL, key: String) async throws -> Data {
        // A fetch for the same source may have stored it and left between this job's cache
        // look-up and its joining (the disk look-up alone is a thread hop): looking again
        // here, once per fetch, means a source is fetched once.
        if sourceCache.isEnabled, let (entry, _) = try await cached(key, in: sourceCache) {
            return entry.data
        }
        let downloadStart = ContinuousClock.now
        let data = try await fetcher.fetch(url)
        metrics.downloadDuration.record(ContinuousClock.now - downloadStart)
        metrics.sourceBytes.increment(by: Int64(data.count))
        if sourceCache.isEnabled {
            let entry = ByteCache.Entry(data: data, format: ImageFormat(sniffing: data))
            _ = try await NIOThreadPool.singleton.run { self.sourceCache.store(entry, forKey: key) }
        }
        return data
    }

    /// A cache's entry for `key`: memory without leaving the task, disk on NIO's blocking-I/O
    /// threads (not the workers, so hits are not stuck behind decodes).
    private func cached(_ key: String, in cache: ByteCache) async throws -> (ByteCache.Entry, ByteCache.Level)? {
        if let entry = cache.memoryEntry(forKey: key) { return (entry, .memory) }
        guard cache.hasDiskLevel else { return nil }
        return try await NIOThreadPool.singleton.run { cache.diskEntry(forKey: key) }.map { ($0, .disk) }
    }

    /// Runs CPU-bound work (decoding, transforming, encoding) on the server's worker threads.
    private func onWorkerThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await workerThreads.run(body)
    }

    /// AVIF, then WebP, each when enabled and the client accepts it: the formats a URL that
    /// names none may be made in, best first (an animation skips AVIF, as in imgproxy).
    func offeredFormats(accept: String?) -> [ImageFormat] {
        guard let accept = accept?.lowercased() else { return [] }
        let coder = processor.configuration.coder
        var offered: [ImageFormat] = []
        if configuration.autoAVIF, accept.contains("image/avif"), coder.canEncode(to: .avif) { offered.append(.avif) }
        if configuration.autoWebP, accept.contains("image/webp"), coder.canEncode(to: .webp) { offered.append(.webp) }
        return offered
    }

    // MARK: Responses

    private func success(_ delivery: Delivery, for request: Request) -> Response {
        let answer = responseParts(delivery, requestHeaders: request.headers, isHead: request.method == .head)
        guard let body = answer.body else { return Response(status: answer.head.status, headers: answer.head.headerFields) }
        return Response(status: answer.head.status, headers: answer.head.headerFields, body: ResponseBody(byteBuffer: body))
    }

    /// A success's status, headers and body (none for `HEAD` and 304): 200 with the
    /// result, or 304 when `If-None-Match` names its `ETag`.
    private func responseParts(_ delivery: Delivery, requestHeaders: HTTPFields, isHead: Bool) -> (head: HTTPResponse, body: ByteBuffer?) {
        let bytes = delivery.entry.bytes
        var headers: HTTPFields = [
            .contentType: delivery.entry.format.mimeType,
            // A TTL of 0 asks for no caching, as imgproxy's does; max-age=0 would allow it.
            .cacheControl: configuration.ttl > 0 ? "max-age=\(configuration.ttl), public" : "no-cache",
        ]
        if let filename = delivery.entry.filename { headers[.contentDisposition] = "inline; filename=\"\(filename)\"" }
        if delivery.varies { headers[.vary] = "Accept" }
        if configuration.useETag {
            let etag = delivery.entry.etag ?? ByteCache.Entry.etag(of: bytes.readableBytesView)
            headers[.eTag] = etag
            if let ifNoneMatch = requestHeaders[.ifNoneMatch], Self.matches(ifNoneMatch, etag) {
                return (HTTPResponse(status: .notModified, headerFields: headers), nil)
            }
        }
        headers[.contentLength] = String(bytes.readableBytes)
        return (HTTPResponse(status: .ok, headerFields: headers), isHead ? nil : bytes)
    }

    /// The file name a result's response suggests, as imgproxy's `Content-Disposition`: the
    /// source's last path segment without its extension (`image` when there is none, or the
    /// source is a `data:` URL), then the result's extension. Characters a quoted header
    /// value cannot hold plainly (`"`, `\`, controls, non-ASCII) are percent-encoded, and
    /// the name is cut at 100 characters.
    static func suggestedFilename(source: URL, format: ImageFormat) -> String {
        var stem = source.scheme?.lowercased() == "data" ? "" : source.deletingPathExtension().lastPathComponent
        if stem == "/" { stem = "" }
        var encoded = ""
        for byte in stem.utf8 {
            if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte != UInt8(ascii: "%") {
                encoded.append(Character(UnicodeScalar(byte)))
            } else {
                let (high, low) = byte.hexDigits(uppercase: true)
                encoded += "%" + String(UnicodeScalar(high)) + String(UnicodeScalar(low))
            }
            if encoded.count >= 100 { break }
        }
        return (encoded.isEmpty ? "image" : encoded) + (format.fileExtension.map { "." + $0 } ?? "")
    }

    /// `If-None-Match`: `*`, or a list of tags one of which is `etag` (weak or strong).
    private static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    static func failure(_ error: ImageServerError, isHead: Bool) -> Response {
        let answer = failureParts(error, isHead: isHead)
        return Response(
            status: answer.head.status,
            headers: answer.head.headerFields,
            body: answer.body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody()
        )
    }

    /// A failure's status, headers and one-line body (none for `HEAD`).
    static func failureParts(_ error: ImageServerError, isHead: Bool) -> (head: HTTPResponse, body: ByteBuffer?) {
        let body = ByteBuffer(string: error.message + "\n")
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache"]
        headers[.contentLength] = String(body.readableBytes)
        return (HTTPResponse(status: HTTPResponse.Status(code: error.status), headerFields: headers), isHead ? nil : body)
    }
}
