import Foundation

/// Handing progress and results to the callers of a download.
extension Downloader {
    /// Sends `progress` to every caller still waiting. With `partials`, callers that asked
    /// for progressive loading also get the newest partial image made with their options;
    /// with `data` too, a new partial decode of it starts if none is running.
    func report(
        _ progress: LoadProgress,
        of operation: DownloadOperation,
        data: Data? = nil,
        partials: PartialImageSource? = nil
    ) {
        guard operation.isProgressWanted else { return }
        // A caller cancelling from now on gets its completion after these progress calls.
        operation.beginProgressReport()
        defer { operation.endProgressReport() }
        let subscribers = state.withLock { $0.scheduler.progressSubscribers(of: operation) }
        guard !subscribers.isEmpty else { return }
        let ready = partials?.takeReady() ?? []
        for subscriber in subscribers {
            var delivered = progress
            if subscriber.progressive, let options = subscriber.decodeOptions {
                delivered.partialImage = ready.first { $0.options == options }?.image
            }
            subscriber.progress?(delivered)
        }
        if let data, let partials {
            var wanted: [ImageCoderOptions] = []
            for subscriber in subscribers where subscriber.progressive {
                if let options = subscriber.decodeOptions, !wanted.contains(options) { wanted.append(options) }
            }
            partials.offer(data, for: wanted)
        }
    }

    /// Whether a caller of `operation` wants partial images, for its ``PartialImageSource``.
    func wantsPartialImages(_ operation: DownloadOperation) -> Bool {
        state.withLock { $0.scheduler.wantsPartialImages(operation) }
    }

    /// Decrypts and decodes the body once per distinct decode options, in parallel, and
    /// hands each waiting caller the image made with its options (the bytes alone to a
    /// caller that wants no image).
    func decodeAndDeliver(_ body: TransferredBody, of operation: DownloadOperation) async {
        // Every caller gone (each had its completion when it cancelled): no read-back, no
        // decryptor, no decode for nobody. A caller who cancels later still leaves its
        // options out of the decode below, which lists the callers then.
        guard !state.withLock({ $0.scheduler.subscribers(of: operation).isEmpty }) else { return }
        var data = body.data
        do {
            if let file = body.file {
                // The body was streamed to a file before a caller wanting an image joined:
                // it is read back (no decryptor runs on a streamed body).
                data = try await Self.readBack(file, limit: config.maximumResponseSize)
            }
            // A 304's body is the caller's cached bytes, decrypted when they were first
            // downloaded: decrypting them again garbled them (and the manager then
            // remembered the URL as failed).
            if let decryptor = operation.requestOptions.decryptor, body.response.statusCode != 304 {
                data = try decryptor.decryptedOrThrow(data, response: body.response)
            }
        } catch {
            for (_, subscriber) in state.withLock({ $0.scheduler.takeSubscribers(of: operation) }) {
                subscriber.completion(.failure(WebImageError(error)))
            }
            return
        }
        var distinct: [ImageCoderOptions] = []
        for (_, subscriber) in state.withLock({ $0.scheduler.subscribers(of: operation) }) {
            if let options = subscriber.decodeOptions, !distinct.contains(options) { distinct.append(options) }
        }
        let coder = config.coder
        let bytes = data
        let decoded = await withTaskGroup(of: (Int, Result<Image, WebImageError>).self) { group in
            for (index, options) in distinct.enumerated() {
                group.addTask {
                    guard !bytes.isEmpty else { return (index, .failure(.badImageData("empty data"))) }
                    return (index, await Self.decode(bytes, options: options, coder: coder))
                }
            }
            var results = [Result<Image, WebImageError>?](repeating: nil, count: distinct.count)
            for await (index, result) in group { results[index] = result }
            return results
        }
        // Callers that cancelled meanwhile already had their completion and are no longer
        // among the subscribers; nobody joined, as the transfer had ended.
        for (_, subscriber) in state.withLock({ $0.scheduler.takeSubscribers(of: operation) }) {
            let result: Result<Image?, WebImageError>
            if let options = subscriber.decodeOptions {
                // Every caller's options were decoded (none joined since); the fallback only
                // keeps "completion exactly once" true without a force unwrap.
                let index = distinct.firstIndex(of: options)
                result = index.flatMap { decoded[$0] }?.map { $0 } ?? .failure(.badImageData("no image decoded"))
            } else {
                result = .success(nil)
            }
            subscriber.completion(result.map {
                DownloadOperation.Delivery(image: $0, data: bytes, file: body.file, url: body.response.url, metrics: body.metrics, response: body.response)
            })
        }
    }

    /// The bytes of a streamed body, for a caller that wants them in memory; at most
    /// `limit` bytes (the file may have been replaced by another process meanwhile).
    static func readBack(_ file: DownloadOperation.StoredBody, limit: Int) async throws -> Data {
        try await BlockingIO.run { try readFile(file, limit: limit) }
    }

    /// ``readBack(_:limit:)`` on the calling thread (blocking).
    static func readFile(_ file: DownloadOperation.StoredBody, limit: Int) throws -> Data {
        let handle = try FileHandle(forReadingFrom: file.url)
        defer { try? handle.close() }
        return try handle.read(upToCount: limit) ?? Data()
    }

    /// Decodes through ``BlockingIO``. Decoding is long, blocking CPU work: on Swift's
    /// cooperative pool it would starve the tasks that drain other downloads' bodies, and
    /// the HTTP client's idle read timeout would then fail those downloads.
    private static func decode(_ data: Data, options: ImageCoderOptions, coder: any ImageCoder) async -> Result<Image, WebImageError> {
        await BlockingIO.run {
            do {
                return .success(try coder.decode(data, options: options))
            } catch {
                return .failure(error as? WebImageError ?? .badImageData(String(describing: error)))
            }
        }
    }
}
