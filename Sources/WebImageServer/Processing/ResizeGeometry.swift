import WebImage

/// The sizes and rectangles of one resize, worked out from the options and the size of the
/// decoded source, before any pixel moves: imgproxy's resizing rules as a pure function.
///
/// The steps are: scale the source to ``scaledSize`` (aspect ratio kept except for
/// `force`), crop ``crop`` out of it (for `fill`), rotate, then, with `extend`, pad to
/// ``canvasSize`` placing the image at ``placement``. The scale and the crop are before the
/// rotation (the requested box is swapped for a quarter turn, so the rotated result has the
/// requested size); the canvas and the placement are after it.
///
/// ```swift
/// let geometry = ResizeGeometry(source: ImageSize(width: 2000, height: 1000), options: options)
/// geometry.scaledSize   // 600x300 for fit 600x600
/// ```
public struct ResizeGeometry: Sendable, Equatable {
    /// The size the source is resampled to.
    public var scaledSize: ImageSize
    /// The part of the scaled image kept (all of it unless the type crops).
    public var crop: PixelRect
    /// The final size, after the rotation and the padding (the rotated crop's size
    /// without `extend`).
    public var canvasSize: ImageSize
    /// Where the cropped and rotated image sits on the canvas.
    public var placement: PixelRect

    /// Works out the geometry for a source of `source` pixels (already upright).
    public init(source: ImageSize, options: ProcessingOptions) {
        let quarterTurn = options.rotate % 180 != 0
        let boxWidth = quarterTurn ? options.targetHeight : options.targetWidth
        let boxHeight = quarterTurn ? options.targetWidth : options.targetHeight
        let sw = Double(max(1, source.width)), sh = Double(max(1, source.height))

        var type = options.resizingType
        if type == .auto {
            // imgproxy's rule: fill when the source and the box are both landscape or both
            // portrait, else fit.
            type = boxWidth > 0 && boxHeight > 0 && (source.width > source.height) == (boxWidth > boxHeight) ? .fill : .fit
        }
        // With one side unset there is nothing to cover or stretch to: every type fits the
        // side that is given.
        if boxWidth == 0 || boxHeight == 0, type != .force { type = .fit }

        var scaleX = 1.0, scaleY = 1.0
        if boxWidth > 0 || boxHeight > 0 {
            let widthRatio = boxWidth > 0 ? Double(boxWidth) / sw : nil
            let heightRatio = boxHeight > 0 ? Double(boxHeight) / sh : nil
            switch type {
            case .force:
                scaleX = widthRatio ?? heightRatio ?? 1
                scaleY = heightRatio ?? widthRatio ?? 1
            case .fill, .fillDown:
                scaleX = max(widthRatio ?? 0, heightRatio ?? 0)
                scaleY = scaleX
            case .fit, .auto:
                scaleX = min(widthRatio ?? .infinity, heightRatio ?? .infinity)
                scaleY = scaleX
            }
            if !options.enlarge {
                scaleX = min(scaleX, 1)
                scaleY = min(scaleY, 1)
            }
        }
        scaledSize = ImageSize(
            width: max(1, Int((sw * scaleX).rounded())),
            height: max(1, Int((sh * scaleY).rounded()))
        )

        var cropSize = scaledSize
        if type == .fill || type == .fillDown {
            cropSize = ImageSize(width: min(boxWidth, scaledSize.width), height: min(boxHeight, scaledSize.height))
            if type == .fillDown, cropSize.width < boxWidth || cropSize.height < boxHeight {
                // Too small to fill the box: keep the box's aspect ratio at the largest size
                // that fits, instead of enlarging.
                let ratio = min(Double(scaledSize.width) / Double(boxWidth), Double(scaledSize.height) / Double(boxHeight))
                cropSize = ImageSize(
                    width: max(1, min(scaledSize.width, Int((Double(boxWidth) * ratio).rounded()))),
                    height: max(1, min(scaledSize.height, Int((Double(boxHeight) * ratio).rounded())))
                )
            }
        }
        crop = Self.place(cropSize, in: scaledSize, gravity: options.gravity)

        // Padding happens after the rotation, so the canvas and the placement are in the
        // final orientation and the gravity means what it says on the result.
        let finalSize = quarterTurn ? ImageSize(width: cropSize.height, height: cropSize.width) : cropSize
        if options.extend, options.targetWidth > 0 || options.targetHeight > 0 {
            canvasSize = ImageSize(
                width: max(options.targetWidth, finalSize.width),
                height: max(options.targetHeight, finalSize.height)
            )
        } else {
            canvasSize = finalSize
        }
        placement = Self.place(finalSize, in: canvasSize, gravity: options.extendGravity)
    }

    /// The rectangle of `size` inside `container` at `gravity`, clamped inside it. Offsets
    /// move away from the anchored edge, as imgproxy's do.
    static func place(_ size: ImageSize, in container: ImageSize, gravity: ProcessingOptions.Gravity) -> PixelRect {
        let freeX = Double(container.width - size.width), freeY = Double(container.height - size.height)
        var x: Double, y: Double
        switch gravity {
        case let .focusPoint(fx, fy):
            x = fx * Double(container.width) - Double(size.width) / 2
            y = fy * Double(container.height) - Double(size.height) / 2
        case let .anchor(anchor, dx, dy):
            switch anchor {
            case .west, .northWest, .southWest: x = dx
            case .east, .northEast, .southEast: x = freeX - dx
            case .center, .north, .south: x = freeX / 2 + dx
            }
            switch anchor {
            case .north, .northEast, .northWest: y = dy
            case .south, .southEast, .southWest: y = freeY - dy
            case .center, .east, .west: y = freeY / 2 + dy
            }
        }
        let clampedX = Int(min(max(0, x), max(0, freeX)).rounded(.down))
        let clampedY = Int(min(max(0, y), max(0, freeY)).rounded(.down))
        return PixelRect(x: clampedX, y: clampedY, width: size.width, height: size.height)
    }
}
