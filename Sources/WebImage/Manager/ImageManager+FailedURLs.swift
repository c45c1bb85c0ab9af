import Foundation

/// The failed-URL set (SDWebImage's `failedURLs`, with its manager delegate's
/// `shouldBlockFailedURL` and `shouldDownloadImage` decisions as closures).
extension ImageManager {
    /// How many failed URLs the manager remembers, and for how long.
    ///
    /// ```swift
    /// let manager = ImageManager(failedURLLimits: .init(capacity: 1_000, expiry: .seconds(600)))
    /// ```
    public struct FailedURLLimits: Sendable, Equatable {
        /// The most URLs held; past it the oldest failure is forgotten. Default 10,000
        /// (about 2 MB of URLs): enough for every dead link a page or a batch meets, and
        /// a bound however many a crawler finds. 0 remembers none.
        public var capacity: Int
        /// How long a failure blocks its URL. Default one hour: a 404 fixed on the origin
        /// loads again in a long-running process without a call to ``removeFailedURL(_:)``.
        public var expiry: Duration

        /// The defaults, or the limits given (a negative capacity counts as 0).
        public init(capacity: Int = 10_000, expiry: Duration = .seconds(3600)) {
            self.capacity = max(0, capacity)
            self.expiry = expiry
        }
    }

    /// Decides whether a failed load blocks its URL (SDWebImage's
    /// `imageManager:shouldBlockFailedURL:withError:`). Default `nil`: the built-in rule
    /// blocks 4xx other than 408 and 429, bytes that are no image and unusable URLs, and
    /// never time-outs, transport errors, 5xx or an image over one load's pixel limit
    /// (another load's context may decode it). Not asked for
    /// cancellations and ``WebImageError/notInCache``, which say nothing about the URL.
    ///
    /// ```swift
    /// manager.shouldBlockFailedURL = { _, error in error == .invalidDownloadStatusCode(410) }
    /// ```
    public var shouldBlockFailedURL: (@Sendable (URL, WebImageError) -> Bool)? {
        get { settings.withLock { $0.shouldBlockFailedURL } }
        set { settings.withLock { $0.shouldBlockFailedURL = newValue } }
    }

    /// Decides whether a load that missed every cache may use the loader (SDWebImage's
    /// `imageManager:shouldDownloadImageForURL:`). Default `nil`: always. When it says no,
    /// the load fails with ``WebImageError/notInCache`` (as with `.fromCacheOnly`), and a
    /// `.refreshCached` load keeps the cached image without asking the server.
    ///
    /// ```swift
    /// manager.shouldDownloadImage = { $0.host == "images.example.com" }
    /// ```
    public var shouldDownloadImage: (@Sendable (URL) -> Bool)? {
        get { settings.withLock { $0.shouldDownloadImage } }
        set { settings.withLock { $0.shouldDownloadImage = newValue } }
    }

    /// Whether `url` is in the failed-URL set (and its failure has not expired).
    public func isFailedURL(_ url: URL) -> Bool {
        failedURLs.contains(url)
    }

    /// Forgets that `url` failed, so it loads again without `.retryFailed`.
    public func removeFailedURL(_ url: URL) {
        failedURLs.remove(url)
    }

    /// Forgets every failed URL.
    public func removeAllFailedURLs() {
        failedURLs.removeAll()
    }

    /// Records a failed load of `url`, if ``shouldBlockFailedURL`` (or the built-in rule)
    /// says its error will come back.
    func rememberFailure(of url: URL, error: WebImageError) {
        guard error != .cancelled, error != .notInCache else { return }
        let shouldBlock = settings.withLock { $0.shouldBlockFailedURL }
        if shouldBlock?(url, error) ?? FailedURLSet.isRemembered(error) {
            failedURLs.insert(url)
        }
    }

    /// Whether a load of `url` may use the loader, by ``shouldDownloadImage``.
    func mayDownload(_ url: URL) -> Bool {
        settings.withLock { $0.shouldDownloadImage }?(url) ?? true
    }
}
