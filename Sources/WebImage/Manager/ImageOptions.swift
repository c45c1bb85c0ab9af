import Foundation

/// Per-load flags: SDWebImage's `SDWebImageOptions` that make sense without UIKit.
///
/// Passed to ``ImageManaging/loadImage(with:options:context:progress:)``; every flag does
/// what its SDWebImage namesake does. Combine them like any `OptionSet`.
///
/// ```swift
/// let result = try await ImageManager.shared.loadImage(with: url, options: [.retryFailed, .scaleDownLargeImages])
/// ```
public struct ImageOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Try a URL again even if it failed before for a non-transient reason.
    public static let retryFailed = ImageOptions(rawValue: 1 << 0)
    /// Queue the download behind normal ones.
    public static let lowPriority = ImageOptions(rawValue: 1 << 1)
    /// Queue the download ahead of normal ones.
    public static let highPriority = ImageOptions(rawValue: 1 << 2)
    /// Deliver partial images while the data arrives.
    public static let progressiveLoad = ImageOptions(rawValue: 1 << 3)
    /// Deliver the cached image, then download again and deliver the new one if it changed.
    public static let refreshCached = ImageOptions(rawValue: 1 << 4)
    /// Send and store cookies with the request.
    public static let handleCookies = ImageOptions(rawValue: 1 << 5)
    /// Accept servers with invalid TLS certificates (testing only).
    public static let allowInvalidSSLCertificates = ImageOptions(rawValue: 1 << 6)
    /// Show the placeholder only when the load fails (binding layer).
    public static let delayPlaceholder = ImageOptions(rawValue: 1 << 7)
    /// Do not set the image on the target; leave it to the completion (binding layer).
    public static let avoidAutoSetImage = ImageOptions(rawValue: 1 << 8)
    /// Apply the transformer to every frame of an animated image, not only to stills.
    public static let transformAnimatedImage = ImageOptions(rawValue: 1 << 9)
    /// Scale down decoded images larger than the scale-down limit.
    public static let scaleDownLargeImages = ImageOptions(rawValue: 1 << 10)
    /// On a memory hit, also read the image's data from disk.
    public static let queryMemoryData = ImageOptions(rawValue: 1 << 11)
    /// With `queryMemoryData`, read that data synchronously.
    public static let queryMemoryDataSync = ImageOptions(rawValue: 1 << 12)
    /// Query the disk synchronously on a memory miss.
    public static let queryDiskDataSync = ImageOptions(rawValue: 1 << 13)
    /// Never use the loader: a cache miss fails.
    public static let fromCacheOnly = ImageOptions(rawValue: 1 << 14)
    /// Skip the cache query and always load (the result is still stored).
    public static let fromLoaderOnly = ImageOptions(rawValue: 1 << 15)
    /// Keep decoded pixels out of the memory cache, for loads whose bitmaps would crowd it
    /// (large photos shown once, batch jobs). SDWebImage's flag skips the force-decode that
    /// would otherwise keep a bitmap alive next to the image; on Linux every decode yields
    /// pixels, so the memory cost the flag exists to avoid is the memory cache's copy: the
    /// image is still decoded for the result, stored on disk as usual, and neither a
    /// download nor a disk hit is kept in memory.
    public static let avoidDecodeImage = ImageOptions(rawValue: 1 << 16)
    /// Decode only the first frame of animated images.
    public static let decodeFirstFrameOnly = ImageOptions(rawValue: 1 << 17)
    /// Decode every frame of an animated image up front instead of lazily.
    public static let preloadAllFrames = ImageOptions(rawValue: 1 << 18)
    /// Complete only after the image has been stored in the cache.
    public static let waitStoreCache = ImageOptions(rawValue: 1 << 19)
}

/// Rewrites the options and context of each load before it starts (SDWebImage's
/// `SDWebImageOptionsProcessor`): for example add `.scaleDownLargeImages` for every URL of
/// one host, or a thumbnail size for a whole screen.
///
/// The manager calls it once per load, on the calling thread, before anything else;
/// returning `nil` leaves the options and context as they were. Implementations must be
/// thread-safe.
///
/// ```swift
/// manager.optionsProcessor = ImageOptionsProcessor { url, options, context in
///     url.host == "cdn.example.com" ? (options.union(.scaleDownLargeImages), context) : nil
/// }
/// ```
public struct ImageOptionsProcessor: Sendable {
    private let body: @Sendable (URL, ImageOptions, ImageContext) -> (ImageOptions, ImageContext)?

    /// Creates a processor from a closure.
    public init(_ process: @escaping @Sendable (URL, ImageOptions, ImageContext) -> (ImageOptions, ImageContext)?) {
        body = process
    }

    /// The options and context to use for `url`.
    public func processed(_ url: URL, options: ImageOptions, context: ImageContext) -> (ImageOptions, ImageContext) {
        body(url, options, context) ?? (options, context)
    }
}
