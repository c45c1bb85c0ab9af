import WebImage

/// The sizes and rectangles of one resize, worked out from the options and the size of the
/// decoded source, before any pixel moves: imgproxy's resizing rules as a pure function
/// (its `calcScale`, `calcSizes`, `limitScale` and `calcPosition`), so that a URL gives
/// the result imgproxy gives, to the pixel.
///
/// The steps, as imgproxy runs them: scale the source to ``scaledSize`` (aspect ratio kept
/// except for `force`), rotate, crop the result's box out of it at the gravity (for `fill`,
/// and whatever exceeds the box), then, with `extend`, pad to ``canvasSize`` placing the
/// image at ``placement``. Every size is worked out in the result's orientation; the crop
/// is handed back in the source's (``crop``), so that only the kept part is ever
/// resampled, and the gravity still means what it says on the result.
///
/// `dpr` multiplies the box, but without `enlarge` only as far as the source allows: a
/// source too small for the box at that ratio keeps the box's shape and composition, as in
/// imgproxy. A result over the server's largest side is scaled down to it.
///
/// ```swift
/// let geometry = ResizeGeometry(source: ImageSize(width: 2000, height: 1000), options: options)
/// geometry.scaledSize   // 600x300 for fit 600x600
/// ```
public struct ResizeGeometry: Sendable, Equatable {
    /// The size the source is resampled to, in the source's orientation.
    public var scaledSize: ImageSize
    /// The part of the scaled image kept, in the source's orientation (all of it unless the
    /// box crops).
    public var crop: PixelRect
    /// The final size, after the rotation and the padding (the rotated crop's size
    /// without `extend`).
    public var canvasSize: ImageSize
    /// Where the cropped and rotated image sits on the canvas.
    public var placement: PixelRect

    /// Works out the geometry for a source of `source` pixels (already upright), within
    /// `maxResultDimension` pixels a side (0: no limit). A vector source (`isVector`) is
    /// scaled up without `enlarge`, as imgproxy does: it was drawn at the size asked for.
    public init(source: ImageSize, options: ProcessingOptions, maxResultDimension: Int = 0, isVector: Bool = false) {
        let quarterTurn = options.rotate % 180 != 0
        // imgproxy works in the result's orientation: the source's sides swap for a quarter turn.
        let sourceWidth = max(1, quarterTurn ? source.height : source.width)
        let sourceHeight = max(1, quarterTurn ? source.width : source.height)
        var scales = Scales(sourceWidth: sourceWidth, sourceHeight: sourceHeight, options: options, isVector: isVector)
        var sizes = Sizes(sourceWidth: sourceWidth, sourceHeight: sourceHeight, scales: scales, options: options)
        if maxResultDimension > 0 {
            var outWidth = Self.minNonZero(sizes.scaled.width, sizes.crop.width)
            var outHeight = Self.minNonZero(sizes.scaled.height, sizes.crop.height)
            if options.extend {
                outWidth = max(outWidth, sizes.target.width)
                outHeight = max(outHeight, sizes.target.height)
            }
            if outWidth > maxResultDimension || outHeight > maxResultDimension {
                scales.limit(to: Double(maxResultDimension) / Double(max(outWidth, outHeight)), sourceWidth: sourceWidth, sourceHeight: sourceHeight)
                sizes = Sizes(sourceWidth: sourceWidth, sourceHeight: sourceHeight, scales: scales, options: options)
            }
        }

        // Scaled, then rotated: the image the crop is taken from, in the result's orientation.
        let rotated = sizes.scaled
        let kept = ImageSize(
            width: min(Self.minNonZero(sizes.crop.width, rotated.width), rotated.width),
            height: min(Self.minNonZero(sizes.crop.height, rotated.height), rotated.height)
        )
        let (left, top) = Self.position(of: kept, in: rotated, gravity: options.gravity, dpr: scales.dpr)
        let cropInResult = PixelRect(x: left, y: top, width: kept.width, height: kept.height)
        scaledSize = quarterTurn ? ImageSize(width: rotated.height, height: rotated.width) : rotated
        crop = Self.unrotate(cropInResult, in: rotated, degrees: options.rotate)

        if options.extend, sizes.target.width > kept.width || sizes.target.height > kept.height {
            canvasSize = ImageSize(
                width: max(kept.width, sizes.target.width > 0 ? sizes.target.width : kept.width),
                height: max(kept.height, sizes.target.height > 0 ? sizes.target.height : kept.height)
            )
        } else {
            canvasSize = kept
        }
        let (x, y) = Self.position(of: kept, in: canvasSize, gravity: options.extendGravity, dpr: scales.dpr)
        placement = PixelRect(x: x, y: y, width: kept.width, height: kept.height)
    }

    /// The scale factors in the result's orientation and the `dpr` in effect (imgproxy's
    /// `calcScale`).
    struct Scales {
        var width: Double
        var height: Double
        var dpr: Double

        init(sourceWidth: Int, sourceHeight: Int, options: ProcessingOptions, isVector: Bool) {
            let sw = Double(sourceWidth), sh = Double(sourceHeight)
            let boxWidth = options.width > 0 ? Double(options.width) : sw
            let boxHeight = options.height > 0 ? Double(options.height) : sh
            var widthShrink = boxWidth != sw ? sw / boxWidth : 1
            var heightShrink = boxHeight != sh ? sh / boxHeight : 1
            if widthShrink != 1 || heightShrink != 1 {
                var type = options.resizingType
                if type == .auto {
                    // Fill when the source and the box face the same way (a square counts
                    // as landscape), else fit.
                    type = (sw - sh >= 0) == (boxWidth - boxHeight >= 0) ? .fill : .fit
                }
                switch type {
                case _ where options.width == 0 && type != .force: widthShrink = heightShrink
                case _ where options.height == 0 && type != .force: heightShrink = widthShrink
                case .fit: (widthShrink, heightShrink) = (max(widthShrink, heightShrink), max(widthShrink, heightShrink))
                case .fill, .fillDown: (widthShrink, heightShrink) = (min(widthShrink, heightShrink), min(widthShrink, heightShrink))
                case .force, .auto: break
                }
            }
            var dpr = options.dpr
            if !options.enlarge, !isVector {
                let minShrink = min(widthShrink, heightShrink)
                if minShrink < 1 {
                    // The box cannot be reached without enlarging: keep its shape, and
                    // (unless extending, which keeps the composition whatever the dpr)
                    // let the dpr make up what it can.
                    widthShrink /= minShrink
                    heightShrink /= minShrink
                    if !options.extend { dpr /= minShrink }
                }
                // The largest dpr that enlarges nothing.
                dpr = min(dpr, min(widthShrink, heightShrink))
            }
            widthShrink = min(widthShrink / dpr, sw)
            heightShrink = min(heightShrink / dpr, sh)
            width = 1 / widthShrink
            height = 1 / heightShrink
            self.dpr = dpr
        }

        /// Scales everything down by `factor` (imgproxy's `limitScale`), never below one pixel.
        mutating func limit(to factor: Double, sourceWidth: Int, sourceHeight: Int) {
            width = max(width * factor, 1 / Double(sourceWidth))
            height = max(height * factor, 1 / Double(sourceHeight))
            dpr *= factor
        }
    }

    /// The box, the scaled source and the part of it kept, in the result's orientation
    /// (imgproxy's `calcSizes`); 0 is a side the box leaves open.
    struct Sizes {
        var target: (width: Int, height: Int)
        var scaled: ImageSize
        var crop: (width: Int, height: Int)

        init(sourceWidth: Int, sourceHeight: Int, scales: Scales, options: ProcessingOptions) {
            target = (ResizeGeometry.scale(options.width, by: scales.dpr), ResizeGeometry.scale(options.height, by: scales.dpr))
            scaled = ImageSize(
                width: max(1, ResizeGeometry.scale(sourceWidth, by: scales.width)),
                height: max(1, ResizeGeometry.scale(sourceHeight, by: scales.height))
            )
            crop = target
            if options.resizingType == .fillDown, !options.enlarge, target.width > 0, target.height > 0 {
                // Too small to fill the box: the box's aspect ratio at the largest size
                // the scaled source has.
                let widthGap = Double(target.width) / Double(scaled.width)
                let heightGap = Double(target.height) / Double(scaled.height)
                if widthGap > heightGap, widthGap > 1 {
                    crop = (scaled.width, ResizeGeometry.scale(scaled.width, by: Double(target.height) / Double(target.width)))
                } else if heightGap > widthGap, heightGap > 1 {
                    crop = (ResizeGeometry.scale(scaled.height, by: Double(target.width) / Double(target.height)), scaled.height)
                }
            }
        }
    }

    /// Where `inner` sits inside `container` at `gravity` (imgproxy's `calcPosition`), kept
    /// inside it. Offsets move away from the anchored edge; an offset under 1 in size is a
    /// fraction of the container's side, a larger one pixels times the `dpr`.
    static func position(of inner: ImageSize, in container: ImageSize, gravity: ProcessingOptions.Gravity, dpr: Double) -> (x: Int, y: Int) {
        let (width, height) = (container.width, container.height)
        var left: Int, top: Int
        switch gravity {
        case let .focusPoint(fx, fy):
            left = scaleToEven(width, by: fx) - inner.width / 2
            top = scaleToEven(height, by: fy) - inner.height / 2
        case let .anchor(anchor, dx, dy):
            let offsetX = abs(dx) >= 1 ? integer((dx * dpr).rounded(.toNearestOrEven)) : scaleToEven(width, by: dx)
            let offsetY = abs(dy) >= 1 ? integer((dy * dpr).rounded(.toNearestOrEven)) : scaleToEven(height, by: dy)
            switch anchor {
            case .west, .northWest, .southWest: left = offsetX
            case .east, .northEast, .southEast: left = width - inner.width - offsetX
            case .center, .north, .south: left = Int((Double(width - inner.width + 1) / 2).rounded(.toNearestOrEven)) + offsetX
            }
            switch anchor {
            case .north, .northEast, .northWest: top = offsetY
            case .south, .southEast, .southWest: top = height - inner.height - offsetY
            case .center, .east, .west: top = Int((Double(height - inner.height + 1) / 2).rounded(.toNearestOrEven)) + offsetY
            }
        }
        return (max(0, min(left, width - inner.width)), max(0, min(top, height - inner.height)))
    }

    /// `rect` in an image of `size` turned `degrees` clockwise, as a rectangle of the image
    /// before the turn.
    static func unrotate(_ rect: PixelRect, in size: ImageSize, degrees: Int) -> PixelRect {
        switch degrees {
        case 90: PixelRect(x: rect.y, y: size.width - rect.x - rect.width, width: rect.height, height: rect.width)
        case 180: PixelRect(x: size.width - rect.x - rect.width, y: size.height - rect.y - rect.height, width: rect.width, height: rect.height)
        case 270: PixelRect(x: size.height - rect.y - rect.height, y: rect.x, width: rect.height, height: rect.width)
        default: rect
        }
    }

    /// `side × factor`, rounded half away from zero; 0 stays 0 (imgproxy's `imath.Scale`).
    static func scale(_ side: Int, by factor: Double) -> Int {
        side == 0 ? 0 : integer((Double(side) * factor).rounded())
    }

    /// `side × factor`, rounded half to even (imgproxy's `imath.ScaleToEven`).
    static func scaleToEven(_ side: Int, by factor: Double) -> Int {
        side == 0 ? 0 : integer((Double(side) * factor).rounded(.toNearestOrEven))
    }

    /// `value` as an `Int`, clamped to ±2^40 (no image side comes near it) so that options
    /// set in code beyond the parser's bounds, or an infinite offset, cannot trap.
    static func integer(_ value: Double) -> Int {
        guard value.isFinite else { return value > 0 ? 1 << 40 : value < 0 ? -(1 << 40) : 0 }
        return Int(min(max(value, -Double(1 << 40)), Double(1 << 40)))
    }

    /// The smaller of two sides where 0 means "open" (imgproxy's `imath.MinNonZero`).
    static func minNonZero(_ a: Int, _ b: Int) -> Int {
        a == 0 ? b : b == 0 ? a : min(a, b)
    }
}
