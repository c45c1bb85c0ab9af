/// Works out the pixel size a vector document (an SVG, a PDF page) is rendered at, from its
/// intrinsic size and the decode options, and refuses sizes too large before anything is
/// allocated.
///
/// A bitmap decoder only ever scales down (``DecodeGeometry``); a vector document is drawn
/// at whatever size is asked, so a ``ImageCoderOptions/thumbnailPixelSize`` is the size it
/// is rendered at, larger than its intrinsic size too, as SDWebImage's SVG and PDF coders
/// do. The box is fitted (or covered, with ``ImageCoderOptions/thumbnailCoversBox``) when
/// the aspect ratio is kept, filled exactly when not. ``ImageCoderOptions/scaleDownLimitBytes``
/// and ``ImageCoderOptions/pixelLimit`` then apply as for any image.
///
/// ```swift
/// let size = try VectorGeometry.renderSize(width: 131, height: 76, options: options)
/// ```
enum VectorGeometry {
    /// The widest and tallest canvas cairo draws into.
    static let maximumSide = 32767

    /// The whole-pixel size of a document `width` × `height` units (CSS pixels, points
    /// scaled to pixels) at its own size: rounded up, as librsvg asks, except that a size
    /// within a millionth of a whole number stays that number.
    static func intrinsicSize(width: Double, height: Double) throws -> ImageSize {
        guard width.isFinite, height.isFinite, width > 0, height > 0 else {
            throw WebImageError.badImageData("document declares an unusable size \(width)x\(height)")
        }
        return ImageSize(width: wholePixels(width), height: wholePixels(height))
    }

    /// A document of `width` × `height` units rendered at ``renderSize(width:height:options:)``
    /// as a still image of `format`: `draw` paints into the RGBA buffer of that size
    /// (zeroed first, so a renderer that fails half-way exposes no old memory) and throws
    /// the renderer's error. The one tail of every vector coder's decode.
    static func renderedImage(
        width: Double,
        height: Double,
        options: ImageCoderOptions,
        format: ImageFormat,
        hasAlpha: Bool,
        draw: (UnsafeMutablePointer<UInt8>?, ImageSize) throws -> Void
    ) throws -> Image {
        let intrinsic = try intrinsicSize(width: width, height: height)
        let target = try renderSize(width: width, height: height, options: options)
        let pixels = try PixelBuffer(uninitializedWidth: target.width, height: target.height) { buffer in
            buffer.initialize(repeating: 0)
            try draw(buffer.baseAddress, target)
        }
        return Image(
            frames: [ImageFrame(pixels: pixels)],
            format: format,
            scale: options.scaleFactor,
            loopCount: 1,
            hasAlpha: hasAlpha,
            isThumbnail: target != intrinsic
        )
    }

    /// The size to render a document of intrinsic size `width` × `height` at. Throws
    /// ``WebImageError/imageTooLarge(width:height:limit:)`` when it exceeds
    /// ``ImageCoderOptions/pixelLimit`` or cairo's largest canvas.
    static func renderSize(width: Double, height: Double, options: ImageCoderOptions) throws -> ImageSize {
        let intrinsic = try intrinsicSize(width: width, height: height)
        var size = intrinsic
        if let box = options.thumbnailPixelSize, box.width > 0, box.height > 0 {
            if options.preserveAspectRatio {
                let widthRatio = Double(box.width) / width, heightRatio = Double(box.height) / height
                let ratio = options.thumbnailCoversBox ? max(widthRatio, heightRatio) : min(widthRatio, heightRatio)
                size = ImageSize(width: wholePixels(width * ratio, rounding: .toNearestOrAwayFromZero),
                                 height: wholePixels(height * ratio, rounding: .toNearestOrAwayFromZero))
                if !options.thumbnailCoversBox {
                    size = ImageSize(width: min(size.width, box.width), height: min(size.height, box.height))
                }
            } else {
                size = box
            }
        }
        if let limit = options.scaleDownLimitBytes, limit > 0 {
            size = DecodeGeometry.scaledDown(size, limitBytes: limit, frameCount: 1)
        }
        try DecodeGeometry.checkPixelLimit(width: size.width, height: size.height, options: options)
        guard size.width <= maximumSide, size.height <= maximumSide else {
            throw WebImageError.imageTooLarge(width: size.width, height: size.height, limit: options.pixelLimit)
        }
        return size
    }

    /// `value` as whole pixels, at least 1 and clamped to `Int`'s range (a document may
    /// declare 1e300 pixels, which the pixel limit then refuses).
    private static func wholePixels(_ value: Double, rounding: FloatingPointRoundingRule = .up) -> Int {
        let nearest = value.rounded()
        let whole = abs(value - nearest) < 1e-6 ? nearest : value.rounded(rounding)
        return whole >= Double(Int.max) ? Int.max : max(1, Int(whole))
    }
}
