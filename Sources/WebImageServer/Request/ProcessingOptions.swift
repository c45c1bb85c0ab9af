import WebImage

/// What one image URL asks the server to do: imgproxy's processing options, parsed and
/// checked, with imgproxy's defaults for everything the URL leaves out.
///
/// Built by ``ProcessingPath`` from the `name:arg:arg` segments of a URL; every option the
/// server understands has a field here, and an option it does not understand never gets
/// this far (it is a 400 naming it). Sizes are in output pixels before `dpr` is applied;
/// ``targetWidth`` and ``targetHeight`` apply it.
///
/// ```swift
/// var options = ProcessingOptions()
/// options.resizingType = .fill; options.width = 300; options.height = 200
/// ```
public struct ProcessingOptions: Sendable, Equatable {
    /// How the source is fitted into the requested box (imgproxy's resizing types).
    public enum ResizingType: String, Sendable, CaseIterable {
        /// Keep the aspect ratio, fit inside the box.
        case fit
        /// Keep the aspect ratio, cover the box, crop the overflow at the gravity.
        case fill
        /// Like ``fill``, but a source smaller than the box is cropped to the box's aspect
        /// ratio instead of being enlarged.
        case fillDown = "fill-down"
        /// Stretch to exactly the box, aspect ratio ignored.
        case force
        /// ``fill`` when the source and the box have the same orientation, else ``fit``.
        case auto
    }

    /// Where a crop or an extension anchors (imgproxy's gravity types).
    public enum Gravity: Sendable, Equatable {
        /// An edge, a corner or the centre, with offsets in pixels away from it.
        case anchor(Anchor, xOffset: Double, yOffset: Double)
        /// A focus point: fractions of the width and height (0...1) kept as close to the
        /// centre of the result as the crop allows.
        case focusPoint(x: Double, y: Double)

        /// The centre, no offset: imgproxy's default.
        public static let center = Gravity.anchor(.center, xOffset: 0, yOffset: 0)
    }

    /// The nine anchors of ``Gravity/anchor(_:xOffset:yOffset:)``, by imgproxy's names.
    public enum Anchor: String, Sendable, CaseIterable {
        case center = "ce", north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
    }

    /// `resizing_type`; default ``ResizingType/fit``.
    public var resizingType = ResizingType.fit
    /// `width`: the box's width; 0 (the default) means "from the height and the aspect ratio".
    public var width = 0
    /// `height`: the box's height; 0 (the default) means "from the width and the aspect ratio".
    public var height = 0
    /// `enlarge`: whether a source smaller than the box is scaled up; default `false`.
    public var enlarge = false
    /// `extend`: whether a result smaller than the box is padded to it with ``background``;
    /// default `false`.
    public var extend = false
    /// Where the padding of ``extend`` puts the image; default centre.
    public var extendGravity = Gravity.center
    /// `gravity`: where ``ResizingType/fill`` crops; default centre.
    public var gravity = Gravity.center
    /// `quality`, 1...100; `nil` (the default) uses the server's configured quality.
    public var quality: Int?
    /// `format`, or the URL's extension; `nil` (the default) lets the server choose.
    public var format: ImageFormat?
    /// `background`: the colour transparent pixels are flattened onto for formats without
    /// alpha, and the colour of ``extend``'s padding; `nil` (the default) means white for
    /// flattening and transparent (or white without alpha) for padding.
    public var background: RGBAColor?
    /// `blur`: the Gaussian's standard deviation in pixels; 0 (the default) is no blur.
    public var blur: Double = 0
    /// `rotate`: clockwise degrees, a multiple of 90; default 0.
    public var rotate = 0
    /// `dpr`: multiplies ``width`` and ``height`` (device pixel ratio); default 1.
    public var dpr: Double = 1
    /// `cachebuster`: no effect on the pixels; it only changes the URL, and so the cache key.
    public var cacheBuster = ""
    /// `auto_rotate`: turn the image upright by its EXIF orientation; default `true`.
    public var autoRotate = true
    /// `strip_metadata`: write no EXIF and no XMP; default `true`, as in imgproxy. With
    /// `false` the source's blocks are kept (EXIF's orientation reset to 1 once the image
    /// is turned upright), in the formats that hold them
    /// (``ImageCoderOptions/MetadataPolicy/all``).
    public var stripMetadata = true
    /// `keep_copyright`: while stripping metadata, keep EXIF's Artist and Copyright (and
    /// nothing else; ``ImageMetadata/copyrightOnly``); default `true`, as imgproxy's
    /// `IMGPROXY_KEEP_COPYRIGHT`. No effect when metadata is kept.
    public var keepCopyright = true
    /// `strip_color_profile`: convert the pixels to sRGB and write no profile; default
    /// `true`, as in imgproxy. With `false` the source's pixels keep their profile, which
    /// the result embeds (``ImageCoderOptions/keepsColorProfile``).
    public var stripColorProfile = true
    /// `page`: which page or frame of a multi-page or animated source to use (from 0);
    /// `nil` (the default) keeps an animation whole.
    public var page: Int?
    /// `max_bytes`: the encoder lowers the quality until the result fits; `nil` (the default)
    /// sets no limit. Applies to lossy formats.
    public var maxBytes: Int?

    /// Options with imgproxy's defaults: fit, no size (the source's), no enlarging.
    public init() {}

    /// The box's width in output pixels: ``width`` × ``dpr`` (0 when unset).
    public var targetWidth: Int { Self.scaled(width, by: dpr) }
    /// The box's height in output pixels: ``height`` × ``dpr`` (0 when unset).
    public var targetHeight: Int { Self.scaled(height, by: dpr) }

    private static func scaled(_ side: Int, by dpr: Double) -> Int {
        guard side > 0 else { return 0 }
        return max(1, Int((Double(side) * dpr).rounded()))
    }
}
