import Foundation

/// The `async` face of the downloader: each call registers a callback download and ties
/// its token to the calling task, so cancelling the task cancels this caller only.
extension Downloader {
    /// Downloads and decodes `url`; cancelling the calling task cancels this caller's token.
    public func load(
        _ url: URL,
        options: DownloadRequestOptions,
        progress: LoadProgressHandler?
    ) async throws -> ImageLoaderResult {
        try await loadImage(from: url, options: options, progress: progress)
    }

    /// Like ``load(_:options:progress:)``, accepting a `nil` URL (which fails with
    /// ``WebImageError/invalidURL(_:)``), as SDWebImage's downloader does.
    public func loadImage(
        from url: URL?,
        options: DownloadRequestOptions = DownloadRequestOptions(),
        progress: LoadProgressHandler? = nil
    ) async throws -> ImageLoaderResult {
        let holder = PendingCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ImageLoaderResult, any Error>) in
                let token = downloadImage(with: url, options: options, progress: progress) { result in
                    continuation.resume(with: result.mapError { $0 as any Error })
                }
                if let token { holder.store { token.cancel() } }
            }
        } onCancel: {
            holder.cancel()
        }
    }

    /// The bytes of `url` without decoding; see ``downloadData(with:options:progress:completion:)``.
    public func loadData(
        from url: URL?,
        options: DownloadRequestOptions = DownloadRequestOptions(),
        progress: LoadProgressHandler? = nil
    ) async throws -> DownloadedData {
        let holder = PendingCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<DownloadedData, any Error>) in
                let token = downloadData(with: url, options: options, progress: progress) { result in
                    continuation.resume(with: result.mapError { $0 as any Error })
                }
                if let token { holder.store { token.cancel() } }
            }
        } onCancel: {
            holder.cancel()
        }
    }
}
