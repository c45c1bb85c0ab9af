import Foundation

/// The `async` face of the prefetcher: one list per call, cancelled with the calling task.
extension Prefetcher {
    /// Prefetches `urls` as one list and returns how it ended. Cancelling the calling task
    /// cancels the list (the URLs not done count as skipped) and returns at once.
    public func prefetch(
        urls: [URL],
        options: ImageOptions? = nil,
        context: ImageContext? = nil,
        progress: ProgressHandler? = nil
    ) async -> PrefetchResult {
        let holder = PendingCancellation()
        let total = urls.count
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PrefetchResult, Never>) in
                let token = prefetch(urls: urls, options: options, context: context, progress: progress) { finished, skipped in
                    continuation.resume(returning: PrefetchResult(finished: finished, skipped: skipped, total: total))
                }
                holder.store { token.cancel() }
            }
        } onCancel: {
            holder.cancel()
        }
    }
}
