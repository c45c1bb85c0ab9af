import Foundation
import Synchronization

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
        let subscribers = operation.progressSubscribers()
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

    /// The open event streams (see ``events()``).
    struct EventListeners {
        var continuations: [Int: AsyncStream<DownloadEvent>.Continuation] = [:]
        var nextID = 0
        /// Set by ``shutdown()``: later streams end at once.
        var isClosed = false
    }

    /// Hands the body to every waiting caller, then marks the operation done. Callers that
    /// want bytes only get them at once, on the calling thread (the transfer's event
    /// loop); when an image or a decryptor is wanted, a task decodes first.
    func deliver(_ body: TransferredBody, of operation: DownloadOperation) {
        let decodes = operation.requestOptions.decryptor != nil || operation.snapshot().contains { $0.subscriber.decodeOptions != nil }
        guard decodes else {
            let delivery = DownloadOperation.Delivery(image: nil, data: body.data, url: body.response.url, metrics: body.metrics, response: body.response)
            for subscriber in operation.removeAll() { subscriber.completion(.success(delivery)) }
            operation.setPhase(.done)
            return
        }
        Task {
            await decodeAndDeliver(body, of: operation)
            operation.setPhase(.done)
        }
    }

    /// Decrypts and decodes the body once per distinct decode options, in parallel, and
    /// hands each waiting caller the image made with its options.
    private func decodeAndDeliver(_ body: TransferredBody, of operation: DownloadOperation) async {
        var data = body.data
        if let decryptor = operation.requestOptions.decryptor {
            guard let decrypted = decryptor.decrypted(data, response: body.response) else {
                for subscriber in operation.removeAll() {
                    subscriber.completion(.failure(.badImageData("the decryptor returned no data")))
                }
                return
            }
            data = decrypted
        }
        var distinct: [ImageCoderOptions] = []
        for (_, subscriber) in operation.snapshot() {
            if let options = subscriber.decodeOptions, !distinct.contains(options) { distinct.append(options) }
        }
        let coder = config.coder
        let bytes = data
        let decoded = await withTaskGroup(of: (Int, Result<Image, WebImageError>).self) { group in
            for (index, options) in distinct.enumerated() {
                group.addTask {
                    guard !bytes.isEmpty else { return (index, .failure(.badImageData("empty data"))) }
                    return (index, await Self.decodeOffThePool(bytes, options: options, coder: coder))
                }
            }
            var results = [Result<Image, WebImageError>?](repeating: nil, count: distinct.count)
            for await (index, result) in group { results[index] = result }
            return results
        }
        // Callers that cancelled meanwhile already had their completion; `remove` skips them.
        for (id, subscriber) in operation.snapshot() {
            let result: Result<Image?, WebImageError>
            if let options = subscriber.decodeOptions {
                guard let index = distinct.firstIndex(of: options), let decodedResult = decoded[index] else { continue }
                result = decodedResult.map { $0 }
            } else {
                result = .success(nil)
            }
            guard operation.remove(id: id).subscriber != nil else { continue }
            subscriber.completion(result.map {
                DownloadOperation.Delivery(image: $0, data: bytes, url: body.response.url, metrics: body.metrics, response: body.response)
            })
        }
    }

    /// Decodes on a dispatch worker. Decoding is long, blocking CPU work: on Swift's
    /// cooperative pool it would starve the tasks that drain other downloads' bodies, and
    /// the HTTP client's idle read timeout would then fail those downloads.
    static func decodeOffThePool(_ data: Data, options: ImageCoderOptions, coder: any ImageCoder) async -> Result<Image, WebImageError> {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                do {
                    continuation.resume(returning: .success(try coder.decode(data, options: options)))
                } catch {
                    continuation.resume(returning: .failure(error as? WebImageError ?? .badImageData(String(describing: error))))
                }
            }
        }
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
            return listeners.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func emit(_ event: DownloadEvent) {
        let continuations = listeners.withLock { $0.continuations.isEmpty ? [] : Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(event) }
    }
}

/// Decides which body chunks get a progress report: SDWebImage's rule, a report when the
/// fraction done grew by at least the minimum interval since the last one. Without an
/// expected size every chunk is reported. The final report is sent separately.
struct ProgressThrottle {
    let expectedSize: Int?
    let minimumInterval: Double
    private var lastFraction = 0.0

    init(expectedSize: Int?, minimumInterval: Double) {
        self.expectedSize = expectedSize
        self.minimumInterval = minimumInterval
    }

    mutating func shouldReport(receivedSize: Int) -> Bool {
        guard let expectedSize, expectedSize > 0 else { return true }
        // The last chunk is covered by the final report.
        guard receivedSize < expectedSize else { return false }
        let fraction = Double(receivedSize) / Double(expectedSize)
        guard fraction - lastFraction >= minimumInterval else { return false }
        lastFraction = fraction
        return true
    }
}

/// The partial-image decoder of one download, created only when a caller wants partial
/// images and no decryptor stands between the bytes and the image.
///
/// Partial decodes run on a dispatch worker, one at a time, while the body keeps
/// streaming: decoding inline would stop reading the socket, and a slow decode would trip
/// the client's idle read timeout. Bytes offered while a decode runs are skipped; a
/// finished decode's images go out with the next progress report, so progress handlers
/// stay serial and never run after the completion.
final class PartialImageSource: Sendable {
    private struct State {
        var busy = false
        var ready: [(options: ImageCoderOptions, image: Image?)] = []
    }

    private let decoder: (any PartialImageDecoder)?
    private let state = Mutex(State())

    init(operation: DownloadOperation, makeDecoder: @Sendable () -> any PartialImageDecoder) {
        let wanted = operation.snapshot().contains { $0.subscriber.progressive }
        decoder = wanted && operation.requestOptions.decryptor == nil ? makeDecoder() : nil
    }

    /// Whether a caller wants partial images, so the bytes so far are worth offering.
    var isActive: Bool { decoder != nil }

    /// Starts decoding `data` for each of `options` unless a decode is running.
    func offer(_ data: Data, for options: [ImageCoderOptions]) {
        guard let decoder, !options.isEmpty else { return }
        let start = state.withLock { state in
            guard !state.busy else { return false }
            state.busy = true
            return true
        }
        guard start else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            let images = options.map { ($0, decoder.partialImage(from: data, options: $0)) }
            state.withLock { state in
                state.ready = images
                state.busy = false
            }
        }
    }

    /// The images of the last finished decode, once.
    func takeReady() -> [(options: ImageCoderOptions, image: Image?)] {
        state.withLock { state in
            defer { state.ready = [] }
            return state.ready
        }
    }
}
