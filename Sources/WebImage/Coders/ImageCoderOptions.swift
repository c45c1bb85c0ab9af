/// Options for one decode or encode: SDWebImage's `SDImageCoderOptions`, typed.
///
/// Decoders read the decode fields, encoders the encode fields; a coder ignores what does
/// not apply to its format.
///
/// ```swift
/// var options = ImageCoderOptions()
/// options.thumbnailPixelSize = ImageSize(width: 256, height: 256)
/// let thumb = try CodersManager.shared.decode(data, options: options)
/// ```
public struct ImageCoderOptions: Sendable, Equatable {
    // MARK: Decoding

    /// The most frames a decode gives: 1 with ``decodeFirstFrameOnly``, else a positive
    /// ``maximumFrameCount``, else no bound.
    var frameLimit: Int {
        if decodeFirstFrameOnly { return 1 }
        if let maximumFrameCount, maximumFrameCount > 0 { return maximumFrameCount }
        return .max
    }

    /// Decode only the first frame of an animated image. Default `false`.
    public var decodeFirstFrameOnly = false
    /// Decode at most this many frames of an animated image, the first ones: the rest are
    /// not decoded and do not count against ``pixelLimit``. An image server's frame limit
    /// (imgproxy's `IMGPROXY_MAX_ANIMATION_FRAMES`) cuts long animations so. The
    /// animation's loop count is kept. Default `nil`: every frame (as are zero and negative
    /// values); ``decodeFirstFrameOnly`` wins over it.
    public var maximumFrameCount: Int?
    /// For ``AnimatedImage``: decode every frame up front instead of on demand
    /// (SDWebImage's `preloadAllFrames`). One-shot decoders always decode every frame and
    /// ignore it. Default `false`.
    public var preloadAllFrames = false
    /// Decode an animated GIF, APNG, WebP or AVIF sequence lazily: ``CodersManager``
    /// returns an ``Image`` holding only the poster frame, with the animation as
    /// ``Image/animatedImage``, whose other frames are decoded when they are asked for
    /// (SDWebImage's `animatedImageClass` set to `SDAnimatedImage`). A long animation then
    /// costs its file and one frame in a cache, not every frame. With ``preloadAllFrames``
    /// every frame is decoded up front, still inside the ``AnimatedImage``. Still images,
    /// ``decodeFirstFrameOnly`` and coders other than ``CodersManager`` decode as usual.
    /// Default `false`.
    public var decodesFramesOnDemand = false
    /// Points-to-pixels scale recorded on the decoded image. Default 1.
    public var scaleFactor: Double = 1
    /// Decode at most this size (a thumbnail); never scales up. Default `nil` (full size).
    public var thumbnailPixelSize: ImageSize?
    /// Keep the aspect ratio when fitting ``thumbnailPixelSize``. Default `true`.
    public var preserveAspectRatio = true
    /// With ``preserveAspectRatio``, make a thumbnail cover ``thumbnailPixelSize`` (scaled
    /// by the larger of the two ratios) instead of fitting inside it: what a crop to the box
    /// needs, as an image server's `fill` does. Never larger than the source. Default
    /// `false` (SDWebImage's fit).
    public var thumbnailCoversBox = false
    /// Whether a thumbnail decode ends by resampling to the exact thumbnail size. `false`
    /// is for a caller that resamples to a size of its own anyway, as the image server does
    /// from the source's geometry: two Lanczos passes, the second by a ratio near 1 (762
    /// rows to 761), blurred fine detail in the middle of a result. A still is then left
    /// as the decoder's cheap shrink made it (JPEG's DCT scaling by 8, 4 or 2, as
    /// imgproxy's; libwebp's to twice the size), or whole; animation frames are shrunk to
    /// twice the thumbnail size, not kept whole. Default `true`.
    package var resamplesToThumbnailSize = true
    /// Scale down so that all frames together need at most this many bytes of RGBA
    /// (SDWebImage's `scaleDownLimitBytes`); a limit below 4 bytes a frame gives 1 × 1
    /// frames. Default `nil` (no limit; so are 0 and negative values).
    public var scaleDownLimitBytes: Int?
    /// Turn pixels upright by the EXIF orientation. Default `true`.
    public var applyOrientation = true
    /// Refuse images whose header declares more pixels than this, before allocating
    /// anything (a guard against decompression bombs). Default 100 megapixels.
    public var pixelLimit = 100_000_000
    /// Keep the source's RGB pixels and attach its embedded colour profile as
    /// ``Image/colorProfile`` (which encoders then embed, as ``metadataPolicy`` allows),
    /// instead of converting the pixels to sRGB. Default `false`: every decoder converts
    /// what a profile, PNG's `gAMA`/`cHRM` or AVIF's and HEIF's `nclx` describe to sRGB
    /// (perceptual intent, alpha untouched), so pixels look as a browser shows them. Grey
    /// and CMYK sources are converted either way, since their pixels become RGB.
    public var keepsColorProfile = false
    /// The profile CMYK sources without a CMYK profile of their own (JPEG, TIFF) are
    /// converted to sRGB through. Default ``ColorProfile/coatedFOGRA39``, the press
    /// condition most print files are made for, so that such a file shows the colours it
    /// would print with (what SDWebImage's ImageIO and imgproxy's libvips do with their own
    /// default CMYK profiles). `nil` gives the naive conversion instead, `R = (255 − C)(255
    /// − K) / 255`, which browsers and Pillow use: brighter and more saturated than any
    /// press prints. Print work aimed at another press sets that press's profile (U.S. Web
    /// Coated SWOP, Japan Color). A profile that is not CMYK counts as `nil`.
    ///
    /// ```swift
    /// options.defaultCMYKProfile = try ColorProfile(iccData: Data(contentsOf: swopProfileURL))
    /// options.defaultCMYKProfile = nil   // as browsers and Pillow show it
    /// ```
    public var defaultCMYKProfile: ColorProfile? = .coatedFOGRA39
    /// Read the source's EXIF and XMP blocks into ``Image/metadata``, so that an encoder
    /// told ``MetadataPolicy/all`` can write them again. Default `false`: a decode reads
    /// and allocates nothing for metadata it would drop (the orientation is read either
    /// way). Blocks over ``ImageMetadata/maximumBlockSize`` are dropped.
    public var readsMetadata = false
    /// The page of a multi-page document to render (PDF), counted from 0; a page the
    /// document does not have fails the decode with ``WebImageError/badImageData(_:)``.
    /// Only that page is read, however many the document has. Default 0, the first page.
    public var pageIndex = 0
    /// The format the caller believes the bytes are in (SDWebImage's
    /// `imageTypeIdentifierHint`), for bytes whose first bytes do not say: an SVG that
    /// starts with a byte-order mark or a blank line, a PDF after a few bytes of junk.
    /// Consulted only when no coder recognises the bytes (``CodersManager`` then asks
    /// ``ImageCoder/canDecode(_:hintedAs:)``), so a wrong hint cannot make a PNG decode as
    /// anything but PNG. Default `nil`: the bytes alone decide.
    public var formatHint: ImageFormat?

    // MARK: Encoding

    /// Quality from 0 (smallest) to 1 (best) for lossy encoders. Default 1.
    public var compressionQuality: Double = 1
    /// Encode losslessly where the format offers both (WebP, AVIF, JPEG XL). Default `false`.
    public var lossless = false
    /// The largest encoded size in bytes; the encoder searches on quality to fit.
    /// Default `nil` (no limit).
    public var maxFileSize: Int?
    /// Scale down (keeping the aspect ratio) to fit this size before encoding.
    /// Default `nil` (no limit).
    public var maxPixelSize: ImageSize?
    /// Colour that transparent pixels are flattened onto for formats without alpha (JPEG).
    /// Default `nil`, which means white, as in SDWebImage.
    public var backgroundColor: RGBAColor?
    /// Encode only the first frame of an animated image. Default `false`.
    public var encodeFirstFrameOnly = false
    /// Floyd–Steinberg dither when an encoder reduces colours to a palette (GIF): smooth
    /// gradients instead of bands, for a somewhat larger file. Images whose colours all fit
    /// the palette are stored exactly either way. Default `true`, as ImageIO (and so
    /// SDWebImage) dithers.
    public var paletteDithering = true
    /// What the encoder writes besides the pixels: nothing, the colour profile, or the
    /// profile with the source's EXIF and XMP. Default `nil`, which chooses by the image:
    /// ``MetadataPolicy/strip`` for thumbnails and transformed images (what SDWebImage users
    /// and imgproxy expect: a derived image does not leak the original's GPS position or
    /// camera serial number), ``MetadataPolicy/colorProfileOnly`` for a plain re-encode (the
    /// profile is part of what the pixels mean, the rest is private). See
    /// ``resolvedMetadataPolicy(for:)``.
    public var metadataPolicy: MetadataPolicy?
    /// With a policy that drops EXIF (``MetadataPolicy/strip``,
    /// ``MetadataPolicy/colorProfileOnly``), still write who made and who owns the image:
    /// EXIF's Artist and Copyright, alone in a block of their own
    /// (``ImageMetadata/copyrightOnly``). Default `false`. imgproxy's `keep_copyright`
    /// (on by default there, and in the image server), thumbor's
    /// `PRESERVE_EXIF_COPYRIGHT_INFO`. The decode must have read the metadata
    /// (``readsMetadata``).
    public var keepsCopyright = false

    /// Options with every default.
    public init() {}

    /// Replaces the encoding fields with `other`'s and keeps the decoding ones: how a
    /// per-load ``ImageContext/imageEncodeOptions`` joins the decode options a load
    /// already resolved.
    mutating func takeEncodeSettings(of other: ImageCoderOptions) {
        compressionQuality = other.compressionQuality
        lossless = other.lossless
        maxFileSize = other.maxFileSize
        maxPixelSize = other.maxPixelSize
        backgroundColor = other.backgroundColor
        encodeFirstFrameOnly = other.encodeFirstFrameOnly
        paletteDithering = other.paletteDithering
        metadataPolicy = other.metadataPolicy
        keepsCopyright = other.keepsCopyright
    }

    /// The policy an encoder applies to `image`: ``metadataPolicy`` when set; otherwise
    /// ``MetadataPolicy/strip`` for a thumbnail or a transformed image and
    /// ``MetadataPolicy/colorProfileOnly`` for the rest.
    public func resolvedMetadataPolicy(for image: Image) -> MetadataPolicy {
        if let metadataPolicy { return metadataPolicy }
        return image.isThumbnail || image.isTransformed ? .strip : .colorProfileOnly
    }
}
