import Foundation

/// Derived cache keys for thumbnails and transformed images (SDWebImage's
/// `SDThumbnailedKeyForKey` and `SDTransformedKeyForKey`).
///
/// The suffix goes before the path extension, so a derived key keeps the original's file
/// extension (and with it the disk file's): `https://a.com/b.jpg?x=1` with the
/// transformer key `t` becomes `https://a.com/b-t.jpg?x=1`.
///
/// ```swift
/// let key = ImageCacheKey.thumbnailed("https://a.com/b.jpg", pixelSize: ImageSize(width: 64, height: 64))
/// // "https://a.com/b-Thumbnail(%7B64,64%7D,1).jpg"
/// ```
public enum ImageCacheKey {
    /// The points-to-pixels scale a key's name claims (SDWebImage's
    /// `SDImageScaleFactorForKey`): 2 or 3 when it contains `@2x.` or `@3x.` (in an
    /// http(s) URL also percent-encoded, `%402x.`), else 1. A load whose context gives no
    /// ``ImageContext/scaleFactor`` uses it, so `icon@2x.png` is a 2× image as on Apple
    /// platforms.
    ///
    /// ```swift
    /// ImageCacheKey.scaleFactor(forKey: "https://a.com/icon@3x.png")  // 3
    /// ```
    public static func scaleFactor(forKey key: String) -> Double {
        // SDWebImage's fast exit: the shortest key that can match is `a@2x.png`.
        guard key.utf8.count >= 8 else { return 1 }
        let isHTTP = key.hasPrefix("http://") || key.hasPrefix("https://")
        for factor in [2, 3] {
            if key.contains("@\(factor)x.") || (isHTTP && key.contains("%40\(factor)x.")) { return Double(factor) }
        }
        return 1
    }

    /// The key of the thumbnail of `key`'s image fitted in `pixelSize`: SDWebImage's
    /// `SDThumbnailedKeyForKey`, `Thumbnail({%f,%f},%d)` (`Thumbnail({64.000000,48.000000},1)`),
    /// so a cache filled by SDWebImage's rule finds its thumbnails. (Until 2026-11-28 the
    /// sizes were printed as integers: such entries are missed once and made again.)
    public static func thumbnailed(_ key: String, pixelSize: ImageSize, preserveAspectRatio: Bool = true) -> String {
        transformed(key, transformerKey: "Thumbnail(\(TransformerKey.size(pixelSize)),\(preserveAspectRatio ? 1 : 0))")
    }

    /// The key of `key`'s image decoded with `options`, where they change the decoded image
    /// beyond its size (which ``thumbnailed(_:pixelSize:preserveAspectRatio:)`` names):
    /// orientation not applied, a covering thumbnail, the colour profile kept, a CMYK
    /// profile other than the default, metadata read, another PDF page. `key` itself for
    /// the default decode, so that loads which ask for nothing special share one entry,
    /// and a load asking for, say, the source's colours never gets the sRGB image another
    /// load stored (nor the reverse).
    ///
    /// ```swift
    /// var options = ImageCoderOptions()
    /// options.keepsColorProfile = true
    /// ImageCacheKey.decoded("https://a.com/b.jpg", options: options)
    /// // "https://a.com/b-Decode(profile=1).jpg"
    /// ```
    public static func decoded(_ key: String, options: ImageCoderOptions) -> String {
        var parts: [String] = []
        if !options.applyOrientation { parts.append("orientation=0") }
        if options.thumbnailCoversBox { parts.append("cover=1") }
        if options.keepsColorProfile { parts.append("profile=1") }
        // What CMYK without a profile of its own converts through, by the decoders' rule
        // (a default that is not CMYK counts as none: the naive formula).
        let cmyk = ColorConversion.cmykProfile(embedded: nil, options: options)
        if cmyk != .coatedFOGRA39 {
            parts.append("cmyk=" + (cmyk.map { String(hex: $0.digest.prefix(6)) } ?? "naive"))
        }
        if options.readsMetadata { parts.append("metadata=1") }
        if options.pageIndex != 0 { parts.append("page=\(options.pageIndex)") }
        // A cut animation is not the animation (first-frame-only is the cache's own rule).
        if !options.decodeFirstFrameOnly, let frames = options.maximumFrameCount, frames > 0 { parts.append("frames=\(frames)") }
        guard !parts.isEmpty else { return key }
        return transformed(key, transformerKey: "Decode(" + parts.joined(separator: ",") + ")")
    }

    /// The key of `key`'s image after the transformer whose key is `transformerKey`.
    public static func transformed(_ key: String, transformerKey: String) -> String {
        let fileExtension = DiskCache.pathExtension(ofKey: key)
        guard !fileExtension.isEmpty else { return key + "-" + transformerKey }
        if let url = URL(string: key), let scheme = url.scheme, scheme != "file",
           let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
           let string = components.string, let pathRange = components.rangeOfPath {
            // The path as written, and everything around it (query, fragment) as it was. Not
            // the decoded path: `a%2Fb.jpg` would become `a/b.jpg`, and two URLs one key.
            let stem = (String(string[pathRange]) as NSString).deletingPathExtension
            let suffix = "-" + transformerKey + "." + fileExtension
            let encodedSuffix = suffix.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? suffix
            return String(string[..<pathRange.lowerBound]) + stem + encodedSuffix + String(string[pathRange.upperBound...])
        }
        let stem = (key as NSString).deletingPathExtension
        return stem + "-" + transformerKey + "." + fileExtension
    }
}

/// Turns a URL into the key it is cached under (SDWebImage's `SDWebImageCacheKeyFilter`):
/// for example drop a signature query that changes on every request.
///
/// Returning `nil` means "do not cache this URL". Implementations must be thread-safe.
///
/// ```swift
/// let filter = BlockCacheKeyFilter { url in
///     var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
///     parts?.query = nil
///     return parts?.string
/// }
/// ```
public protocol CacheKeyFilter: Sendable {
    /// The cache key for `url`, or `nil` to skip caching.
    func cacheKey(for url: URL) -> String?
}

/// A ``CacheKeyFilter`` made from a closure.
public struct BlockCacheKeyFilter: CacheKeyFilter {
    private let block: @Sendable (URL) -> String?

    /// Creates a filter that calls `block(url)`.
    public init(_ block: @escaping @Sendable (URL) -> String?) {
        self.block = block
    }

    public func cacheKey(for url: URL) -> String? {
        block(url)
    }
}
