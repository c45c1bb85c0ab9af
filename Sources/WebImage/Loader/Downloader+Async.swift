import Foundation

/// The `async` face of the downloader: each call registers a callback download and ties
/// its token to the calling task, so cancelling the task cancels this caller only.
extension Downloader {
    /// Downloads and decodes `url`; cancelling the calling task cancels this caller's token.
    public func load(
        _ url: URL,
        options: DownloadRequestOptions,
        progress: LoadProgressHandler?
    ) async throws(WebImageError) -> ImageLoaderOutput {
        try await loadImage(from: url, options: options, progress: progress)
    }

    /// Like ``load(_:options:progress:)``, accepting a `nil` URL (which fails with
    /// ``WebImageError/invalidURL(_:)``), as SDWebImage's downloader does.
    public func loadImage(
        from url: URL?,
        options: DownloadRequestOptions = DownloadRequestOptions(),
        progress: LoadProgressHandler? = nil
    ) async throws(WebImageError) -> ImageLoaderOutput {
        try await Self.awaitDownload { completion in
            downloadImage(with: url, options: options, progress: progress, completion: completion)
        }
    }

    /// The bytes of `url` without decoding; see ``downloadData(with:options:progress:completion:)``.
    public func loadData(
        from url: URL?,
        options: DownloadRequestOptions = DownloadRequestOptions(),
        progress: LoadProgressHandler? = nil
    ) async throws(WebImageError) -> DownloadedData {
        try await Self.awaitDownload { completion in
            downloadData(with: url, options: options, progress: progress, completion: completion)
        }
    }

    /// Starts one callback download with `start` and waits for its completion; cancelling
    /// the calling task cancels the token `start` returned (a download that failed at once
    /// returns none). A task cancelled already fails at once: starting would open a
    /// connection and send the request only to stop it.
    private static func awaitDownload<Value: Sendable>(
        _ start: (@escaping @Sendable (Result<Value, WebImageError>) -> Void) -> DownloadToken?
    ) async throws(WebImageError) -> Value {
        guard !Task.isCancelled else { throw .cancelled }
        let result: Result<Value, WebImageError> = await PendingCancellation.awaitCallback { completion in
            guard let token = start(completion) else { return nil }
            return { token.cancel() }
        }
        return try result.get()
    }
}
