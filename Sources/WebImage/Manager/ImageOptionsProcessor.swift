import Foundation

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
