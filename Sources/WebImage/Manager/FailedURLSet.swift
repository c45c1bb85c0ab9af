import Foundation

/// The URLs that failed for a reason a retry would not fix (SDWebImage's `failedURLs`),
/// so the manager fails them at once until `.retryFailed` is passed.
///
/// Thread-safe. A lookup on an empty set takes the lock and nothing else, so the common
/// case costs no URL hashing.
final class FailedURLSet: Sendable {
    private let urls = LockedValue(Set<URL>())

    /// Whether `url` failed before.
    func contains(_ url: URL) -> Bool {
        urls.withLock { $0.isEmpty ? false : $0.contains(url) }
    }

    /// Remembers `url` when `error` is not transient.
    func record(_ url: URL, error: WebImageError) {
        guard Self.isRemembered(error) else { return }
        _ = urls.withLock { $0.insert(url) }
    }

    /// Forgets `url` (after a success, or when asked).
    func remove(_ url: URL) {
        urls.withLock { set in
            if !set.isEmpty { set.remove(url) }
        }
    }

    /// Forgets every URL.
    func removeAll() {
        urls.withLock { $0.removeAll() }
    }

    /// Whether a failure says something about the URL itself. Time-outs, transport errors,
    /// cancellation, server errors (5xx), 408 and 429 may go away on their own, so they are
    /// not remembered; a 4xx, bytes that are no image, an image over the limits, or an
    /// unusable URL will fail the same way next time. SDWebImage's downloader keeps a
    /// similar split (it forgives every status code; here a 404 is remembered, as the
    /// project's issue asks).
    static func isRemembered(_ error: WebImageError) -> Bool {
        switch error {
        case .invalidURL, .badImageData, .unsupportedFormat, .imageTooLarge, .invalidDownloadContentType, .responseTooLarge:
            true
        case .invalidDownloadStatusCode(let code):
            (400..<500).contains(code) && code != 408 && code != 429
        case .cacheNotModified, .blackListed, .invalidDownloadOperation, .cancelled, .invalidDownloadResponse,
             .encodingFailed, .timedOut, .network, .notInCache, .transformFailed:
            false
        }
    }
}
