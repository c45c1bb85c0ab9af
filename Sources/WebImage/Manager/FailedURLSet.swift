import Crypto
import Foundation

/// The URLs that failed for a reason a retry would not fix (SDWebImage's `failedURLs`),
/// so the manager fails them at once until `.retryFailed` is passed, the entry expires,
/// or it is removed.
///
/// Bounded both ways: at most ``ImageManager/FailedURLLimits/capacity`` URLs (the oldest
/// failure is forgotten first, so a crawler meeting endless dead links cannot grow it
/// without end) and each for ``ImageManager/FailedURLLimits/expiry`` (a 404 that is
/// fixed on the server loads again later without anyone calling `removeFailedURL`).
///
/// A URL is held by its text, or by a digest of it when the text is long: a failed `data:`
/// URL is the whole image (up to the loader's 100 MiB), and ten thousand of them held whole
/// would be gigabytes.
///
/// Thread-safe. A lookup on an empty set takes the lock and nothing else, so the common
/// case costs no URL hashing.
final class FailedURLSet: Sendable {
    private let limits: ImageManager.FailedURLLimits
    private let now: @Sendable () -> ContinuousClock.Instant
    /// ``key(for:)`` → when its URL failed, most recent failure first.
    private let failures = LockedValue(LRUList<String, ContinuousClock.Instant>())

    /// URLs whose text is longer than this, in bytes, are held by their digest.
    static let longestURLHeldWhole = 2_048

    /// What `url` is held by: its text, or for a text over ``longestURLHeldWhole`` bytes
    /// the SHA-256 of it (a prefix that no URL's text has keeps the two kinds apart).
    static func key(for url: URL) -> String {
        let text = url.absoluteString
        guard text.utf8.count > longestURLHeldWhole else { return text }
        return " sha256:" + String(hex: SHA256.hash(data: Data(text.utf8)))
    }

    /// A set within `limits`; `now` is the clock (tests pass their own).
    init(limits: ImageManager.FailedURLLimits, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.limits = limits
        self.now = now
    }

    /// Whether `url` failed before and the failure has not expired (an expired entry is
    /// dropped here).
    func contains(_ url: URL) -> Bool {
        // The key outside the lock (a long URL's digest takes time), and only when there is
        // anything to look up.
        guard count > 0 else { return false }
        let key = Self.key(for: url)
        return failures.withLock { failures in
            guard let failedAt = failures.peek(key) else { return false }
            guard now() - failedAt < limits.expiry else {
                failures.remove(key)
                return false
            }
            return true
        }
    }

    /// Remembers that `url` failed now, forgetting the oldest failure beyond the capacity.
    func insert(_ url: URL) {
        guard limits.capacity > 0 else { return }
        let failedAt = now()
        let key = Self.key(for: url)
        failures.withLock { failures in
            failures.set(failedAt, forKey: key, cost: 1)
            while failures.count > limits.capacity { _ = failures.removeLeastRecent() }
        }
    }

    /// Forgets `url` (after a success, or when asked).
    func remove(_ url: URL) {
        guard count > 0 else { return }
        let key = Self.key(for: url)
        failures.withLock { _ = $0.remove(key) }
    }

    /// Forgets every URL.
    func removeAll() {
        failures.withLock { $0.removeAll() }
    }

    /// How many URLs are held, expired ones not yet looked up included.
    var count: Int {
        failures.withLock { $0.count }
    }

    /// The built-in answer to "block this URL after this error?". Time-outs, transport
    /// errors, cancellation, server errors (5xx), 408 and 429 may go away on their own, and
    /// a proxy's 407 or an unusable setting is the downloader's, not the URL's, so they are
    /// not remembered; a 4xx, bytes that are no image, or an unusable URL will fail the
    /// same way next time. SDWebImage's downloader keeps a similar split (it forgives every
    /// status code; here a 404 is remembered, as the project's issue asks).
    ///
    /// An image over the pixel limit is not remembered: the limit is the load's, not the
    /// URL's. The same bytes decode under another load's context (a thumbnail size, a
    /// higher ``ImageCoderOptions/pixelLimit``, frames on demand), and SDWebImage blocks
    /// none of its decoders' errors but bad data.
    static func isRemembered(_ error: WebImageError) -> Bool {
        switch error {
        case .invalidURL, .badImageData, .unsupportedFormat, .invalidDownloadContentType, .responseTooLarge:
            true
        case .invalidDownloadStatusCode(let code):
            (400..<500).contains(code) && code != 408 && code != 429
        case .cacheNotModified, .blackListed, .invalidDownloadOperation, .cancelled, .invalidDownloadResponse,
             .encodingFailed, .timedOut, .network, .notInCache, .transformFailed, .imageTooLarge,
             // The downloader's settings, not the URL: fixed there, the URL loads.
             .proxyAuthenticationRequired, .invalidConfiguration:
            false
        }
    }
}
