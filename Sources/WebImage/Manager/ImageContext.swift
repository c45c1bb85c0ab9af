import Dispatch

/// Typed per-call overrides: SDWebImage's `SDWebImageContext`.
///
/// Every field is optional; `nil` means "use the manager's own". Unlike SDWebImage's
/// dictionary, the fields are typed, so a wrong value is a compile error.
///
/// ```swift
/// var context = ImageContext()
/// context.thumbnailPixelSize = ImageSize(width: 256, height: 256)
/// context.transformer = RoundCornerTransformer(radius: 12)
/// ```
public struct ImageContext: Sendable {
    /// The cache to query and store in, instead of the manager's.
    public var imageCache: (any ImageCaching)?
    /// The loader to use, instead of the manager's.
    public var imageLoader: (any ImageLoader)?
    /// The coder to decode with, instead of ``CodersManager/shared``: for downloads, `file:`
    /// and `data:` loads, and disk-cache hits (a custom loader decodes as it chooses).
    public var imageCoder: (any ImageCoder)?
    /// Transforms the decoded image; its key becomes part of the cache key. A transform
    /// that throws (a crop outside the image) does not fail the load: as with SDWebImage's
    /// transformer returning no image, the untransformed image stands for the transformed
    /// one, delivered and cached under the transformed key.
    public var transformer: (any ImageTransformer)?
    /// Decode at most this size; part of the cache key.
    public var thumbnailPixelSize: ImageSize?
    /// Keep the aspect ratio when fitting `thumbnailPixelSize` (default `true`).
    public var preserveAspectRatio: Bool?
    /// The image's points-to-pixels scale. Default `nil`: the scale the cache key's name
    /// claims (`@2x.`, `@3x.`; see ``ImageCacheKey/scaleFactor(forKey:)``), else 1.
    public var scaleFactor: Double?
    /// Return animations with their frames decoded on demand (SDWebImage's
    /// `animatedImageClass` set to `SDAnimatedImage`): the result's ``Image`` holds the
    /// poster frame and ``ImageLoadResult/animatedImage`` the animation, so the memory
    /// cache charges the frames decoded (the poster; every frame with `.preloadAllFrames`),
    /// not the whole animation, and the disk keeps the file as it came. A cached image
    /// decoded the other way is not reused for such a load (nor the reverse): it is
    /// decoded again from disk. Default `nil` (`false`): every frame decoded at once.
    public var decodesFramesOnDemand: Bool?
    /// The byte limit used by `.scaleDownLargeImages`.
    public var scaleDownLimitBytes: Int?
    /// The format to try when the downloaded or stored bytes do not name their own
    /// (SDWebImage's `imageTypeIdentifierHint`; see ``ImageCoderOptions/formatHint``), for
    /// an origin known to serve, say, SVGs that start with a byte-order mark. Bytes that
    /// do name a format decode as that format whatever the hint. Default `nil`.
    public var imageFormatHint: ImageFormat?
    /// How this load decodes (SDWebImage's `imageDecodeOptions`): the base every decode
    /// of it starts from, downloads, disk hits and files alike. For what no field above
    /// says: ``ImageCoderOptions/keepsColorProfile``,
    /// ``ImageCoderOptions/defaultCMYKProfile``, ``ImageCoderOptions/readsMetadata``,
    /// ``ImageCoderOptions/applyOrientation``, ``ImageCoderOptions/pixelLimit``,
    /// ``ImageCoderOptions/pageIndex``, ``ImageCoderOptions/thumbnailCoversBox``. The
    /// fields above and the ``ImageOptions`` flags set theirs on top (a flag only turns
    /// its option on; a thumbnail given here counts when ``thumbnailPixelSize`` is `nil`).
    /// Encoding fields are not read (see ``imageEncodeOptions``). Options that change the
    /// decoded image add a part to the cache key (``ImageCacheKey/decoded(_:options:)``),
    /// so each variant has its own entry. Default `nil`: ``ImageCoderOptions``' defaults.
    public var imageDecodeOptions: ImageCoderOptions?
    /// Which caches to query for the final (transformed/thumbnail) image.
    public var queryCacheType: ImageCacheType?
    /// Which caches to store the final image in.
    public var storeCacheType: ImageCacheType?
    /// Which caches to query for the original image on a transformed/thumbnail miss.
    public var originalQueryCacheType: ImageCacheType?
    /// Which caches to store the original image in (default: disk).
    public var originalStoreCacheType: ImageCacheType?
    /// The cache for original images, when different from `imageCache`.
    public var originalImageCache: (any ImageCaching)?
    /// Changes each request before it is sent.
    public var requestModifier: RequestModifier?
    /// Changes or rejects each response.
    public var responseModifier: ResponseModifier?
    /// Turns downloaded bytes into image bytes.
    public var decryptor: Decryptor?
    /// Maps a URL to its cache key.
    public var cacheKeyFilter: (any CacheKeyFilter)?
    /// Chooses the bytes stored on disk.
    public var cacheSerializer: (any CacheSerializer)?
    /// How the cache encodes an image it has no bytes for, such as a thumbnail or a
    /// transformed image (SDWebImage's `imageEncodeOptions`): quality, lossless, size and
    /// pixel limits, background colour, first frame only, dithering, metadata policy (left
    /// `nil`, thumbnails and transformed images are stored stripped). Only those encoding
    /// fields are read; the decoding fields come from the fields above. Lets a caller keep
    /// thumbnails at, say, quality 0.8 without writing a ``cacheSerializer``, which would
    /// have to pick the format itself. Default `nil`: ``ImageCoderOptions``' defaults
    /// (quality 1). A ``cacheSerializer``, when set, decides the bytes instead.
    public var imageEncodeOptions: ImageCoderOptions?
    /// Where the callback form of `loadImage` calls its completion. Default `nil`: on an
    /// arbitrary thread (synchronously, on the calling thread, for a memory hit).
    public var callbackQueue: DispatchQueue?
    /// Names the load on a binding target, so a new load with the same key cancels the old one.
    public var operationKey: String?

    /// A context with every field `nil`.
    public init() {}
}

extension ImageContext {
    /// The thumbnail a load decodes to: ``thumbnailPixelSize``, else the one in
    /// ``imageDecodeOptions``. What the cache key names and the decode uses, alike.
    var resolvedThumbnailPixelSize: ImageSize? {
        thumbnailPixelSize ?? imageDecodeOptions?.thumbnailPixelSize
    }

    /// Whether that thumbnail keeps the aspect ratio: ``preserveAspectRatio``, else the
    /// choice in ``imageDecodeOptions``, else `true`.
    var resolvedPreserveAspectRatio: Bool {
        preserveAspectRatio ?? imageDecodeOptions?.preserveAspectRatio ?? true
    }
}
