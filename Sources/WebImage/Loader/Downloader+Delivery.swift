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
        var data = body.data
        if let decryptor = operation.requestOptions.decryptor {
            do {
                data = try decryptor.decryptedOrThrow(data, response: body.response)
            } catch {
                for (_, subscriber) in state.withLock({ $0.scheduler.takeSubscribers(of: operation) }) {
                    subscriber.completion(.failure(error))
                }
                return
            }
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
                DownloadOperation.Delivery(image: $0, data: bytes, url: body.response.url, metrics: body.metrics, response: body.response)
            })
        }
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
