import Foundation
import Synchronization

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
        let holder = PrefetchTokenHolder()
        let total = urls.count
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PrefetchResult, Never>) in
                let token = prefetch(urls: urls, options: options, context: context, progress: progress) { finished, skipped in
                    continuation.resume(returning: PrefetchResult(finished: finished, skipped: skipped, total: total))
                }
                holder.store(token)
            }
        } onCancel: {
            holder.cancel()
        }
    }
}

/// Hands a token from the starting call to a cancellation handler that may run before,
/// during or after the start.
private final class PrefetchTokenHolder: Sendable {
    private enum Slot { case empty, token(PrefetchToken), cancelled }
    private let slot = Mutex(Slot.empty)

    func store(_ token: PrefetchToken) {
        let cancelNow = slot.withLock { slot in
            if case .cancelled = slot { return true }
            slot = .token(token)
            return false
        }
        if cancelNow { token.cancel() }
    }

    func cancel() {
        let token: PrefetchToken? = slot.withLock { slot in
            defer { slot = .cancelled }
            if case .token(let token) = slot { return token }
            return nil
        }
        token?.cancel()
    }
}
