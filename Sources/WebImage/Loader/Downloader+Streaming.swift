import Foundation

/// Downloads that need no decode, streamed into a ``DownloadDestination`` as they arrive.
extension Downloader {
    /// Downloads `url` into `destination` without decoding it and without holding the
    /// body in memory: the body is written as it arrives, in buffers of
    /// ``Configuration/streamingBufferSize`` bytes, off the event loops and with
    /// back-pressure (a slow disk slows the socket), then committed. For prefetching
    /// originals into a disk cache, or saving the bytes of a large image.
    ///
    /// The size limit (``Configuration/maximumResponseSize``), the response checks and
    /// cancellation apply as for any download; on any failure, cancellation or bad status
    /// the writer is aborted, so the destination never keeps a partial body. While a write
    /// is in flight the socket is not read, so the idle timeout (``Configuration/timeout``)
    /// also bounds one write: a disk that stalls longer fails the download with
    /// ``WebImageError/timedOut``, as a stalled server would.
    ///
    /// Coalescing is kept: concurrent callers of one URL share one request (unless a caller
    /// has request-level options of its own; see ``DownloadRequestOptions``). The body
    /// streams only when, at the response head, every caller waiting wants it in a file
    /// (the first caller's destination is used; no decryptor may be set, as it needs the
    /// whole body); otherwise this transfer takes the in-memory path and this caller's
    /// bytes are written to `destination` when it ends. A caller that joins after the
    /// body began to stream and wants the bytes or an image gets them read back from the
    /// committed file; one with another destination gets a copy.
    ///
    /// `completion` is called exactly once, on an arbitrary thread. Returns `nil` (after
    /// calling `completion`) for an unusable URL or a shut-down downloader.
    @discardableResult
    public func downloadFile(
        with url: URL?,
        to destination: any DownloadDestination,
        options: DownloadRequestOptions = DownloadRequestOptions(),
        progress: LoadProgressHandler? = nil,
        completion: @escaping @Sendable (Result<DownloadedFile, WebImageError>) -> Void
    ) -> DownloadToken? {
        register(url, options: options, decode: false, destination: destination, progress: progress) { result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let delivery):
                if let file = delivery.file, file.destination === destination {
                    completion(.success(DownloadedFile(
                        fileURL: file.url, byteCount: file.byteCount, url: delivery.url, metrics: delivery.metrics, response: delivery.response
                    )))
                    return
                }
                // The body is in memory or in another caller's file: write this caller's
                // copy off the event loop.
                BlockingIO.start {
                    completion(Result { () throws(WebImageError) -> DownloadedFile in
                        let (fileURL, count) = try Self.write(delivery, to: destination)
                        return DownloadedFile(fileURL: fileURL, byteCount: count, url: delivery.url, metrics: delivery.metrics, response: delivery.response)
                    })
                }
            }
        }
    }

    /// The `async` form of ``downloadFile(with:to:options:progress:completion:)``;
    /// cancelling the calling task cancels this caller's token, and from a task already
    /// cancelled it throws ``WebImageError/cancelled`` without sending a request.
    public func loadFile(
        from url: URL?,
        to destination: any DownloadDestination,
        options: DownloadRequestOptions = DownloadRequestOptions(),
        progress: LoadProgressHandler? = nil
    ) async throws(WebImageError) -> DownloadedFile {
        guard !Task.isCancelled else { throw .cancelled }
        let result: Result<DownloadedFile, WebImageError> = await PendingCancellation.awaitCallback { completion in
            guard let token = downloadFile(with: url, to: destination, options: options, progress: progress, completion: completion) else { return nil }
            return { token.cancel() }
        }
        return try result.get()
    }

    /// Where the body of `operation` streams, asked when its response head arrived: the
    /// first caller's destination when every caller waiting wants a file and no decryptor
    /// is set; `nil` to keep the body in memory.
    func streamingDestination(of operation: DownloadOperation) -> (any DownloadDestination)? {
        guard operation.isFileWanted, operation.requestOptions.decryptor == nil else { return nil }
        return state.withLock { $0.scheduler.streamingDestination(of: operation) }
    }

    /// Writes a delivered body (in memory, or another destination's file copied in
    /// buffers of ``copyBufferSize`` bytes) to `destination`. Blocking.
    private static func write(_ delivery: DownloadOperation.Delivery, to destination: any DownloadDestination) throws(WebImageError) -> (URL, Int) {
        var writer: (any DownloadBodyWriter)?
        do {
            let opened = try destination.makeWriter()
            writer = opened
            var count = 0
            if let file = delivery.file, delivery.data.isEmpty {
                let handle = try FileHandle(forReadingFrom: file.url)
                defer { try? handle.close() }
                while let chunk = try handle.read(upToCount: copyBufferSize), !chunk.isEmpty {
                    try chunk.withUnsafeBytes { try opened.write($0) }
                    count += chunk.count
                }
            } else {
                try delivery.data.withUnsafeBytes { try opened.write($0) }
                count = delivery.data.count
            }
            return (try opened.commit(), count)
        } catch {
            writer?.abort()
            throw WebImageError(error)
        }
    }

    /// Bytes per read when copying another caller's file.
    private static let copyBufferSize = 256 * 1024
}
