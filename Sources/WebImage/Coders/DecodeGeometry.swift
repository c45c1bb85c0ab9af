/// Works out the size a decoder should produce, from the source size and the options.
///
/// One place for SDWebImage's sizing rules, so every coder gives the same answer:
/// thumbnails fit a box and never scale up; `scaleDownLimitBytes` caps the pixels of all
/// frames together. Sizes here are in the orientation the pixels will finally have.
///
/// ```swift
/// let target = DecodeGeometry.targetSize(for: ImageSize(width: 5250, height: 3450), options: options)
/// ```
public enum DecodeGeometry {
    /// The output size for a source of `source` pixels and `frameCount` frames.
    public static func targetSize(
        for source: ImageSize,
        frameCount: Int = 1,
        options: ImageCoderOptions
    ) -> ImageSize {
        sourceSizeReport?.record(source)
        var size = source
        if let box = options.thumbnailPixelSize, box.width > 0, box.height > 0 {
            size = thumbnailSize(
                for: source, in: box, preserveAspectRatio: options.preserveAspectRatio,
                coversBox: options.thumbnailCoversBox
            )
        }
        if let limit = options.scaleDownLimitBytes, limit > 0 {
            size = scaledDown(size, limitBytes: limit, frameCount: frameCount)
        }
        return size
    }

    /// SDWebImage's thumbnail rule: fit inside `box`, never larger than the source.
    /// With the aspect ratio kept, both sides scale by the smaller ratio (rounded);
    /// without, each side is clamped separately. With `coversBox` (and the aspect ratio
    /// kept) both sides scale by the larger ratio instead, so the result covers `box` and a
    /// crop to it can follow; still never larger than the source.
    public static func thumbnailSize(
        for source: ImageSize,
        in box: ImageSize,
        preserveAspectRatio: Bool,
        coversBox: Bool = false
    ) -> ImageSize {
        guard preserveAspectRatio else {
            return ImageSize(width: min(source.width, box.width), height: min(source.height, box.height))
        }
        let widthRatio = Double(box.width) / Double(source.width)
        let heightRatio = Double(box.height) / Double(source.height)
        let ratio = coversBox ? max(widthRatio, heightRatio) : min(widthRatio, heightRatio)
        guard ratio < 1 else { return source }
        // Covering, the side that decides the ratio lands on the box exactly and the other
        // may not round below it; fitting, neither side may round above the box.
        let width = Int((Double(source.width) * ratio).rounded())
        let height = Int((Double(source.height) * ratio).rounded())
        return coversBox
            ? ImageSize(width: max(box.width, width), height: max(box.height, height))
            : ImageSize(width: max(1, min(box.width, width)), height: max(1, min(box.height, height)))
    }

    /// SDWebImage's scale-down rule: at most `limitBytes / (4 × frameCount)` pixels per frame,
    /// keeping the aspect ratio; a size already within the limit is returned unchanged. A
    /// limit that leaves less than one pixel per frame gives 1 × 1, the smallest image
    /// there is (as SDWebImage does), never the full size.
    public static func scaledDown(_ size: ImageSize, limitBytes: Int, frameCount: Int) -> ImageSize {
        // Divided in two steps so a frame count read from a file cannot overflow `4 × n`;
        // the size is multiplied with overflow checked for the same reason.
        let maxPixels = limitBytes / 4 / max(1, frameCount)
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard size.width > 0, size.height > 0, overflow || pixels > maxPixels else { return size }
        guard maxPixels > 0 else { return ImageSize(width: 1, height: 1) }
        let ratio = (Double(maxPixels) / (Double(size.width) * Double(size.height))).squareRoot()
        var width = max(1, Int((Double(size.width) * ratio).rounded(.down)))
        var height = max(1, Int((Double(size.height) * ratio).rounded(.down)))
        // Floating-point error can leave one pixel too many; trim the longer side.
        while width * height > maxPixels, width > 1 || height > 1 {
            if width >= height { width -= 1 } else { height -= 1 }
        }
        return ImageSize(width: width, height: height)
    }

    /// Throws ``WebImageError/imageTooLarge(width:height:limit:)`` when a header declares
    /// more pixels than `options.pixelLimit`, and ``WebImageError/badImageData(_:)`` for a
    /// non-positive size. Call before allocating anything for the image.
    public static func checkPixelLimit(width: Int, height: Int, options: ImageCoderOptions) throws {
        guard width > 0, height > 0 else {
            throw WebImageError.badImageData("image declares an empty size \(width)x\(height)")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > options.pixelLimit {
            throw WebImageError.imageTooLarge(width: width, height: height, limit: options.pixelLimit)
        }
    }
}

// MARK: Finishing decoded frames
//
// The last steps every decoder shares: resize to the size the options ask for, then
// turn upright by the EXIF orientation.
//
// Resizing happens before orienting because it shrinks the buffer that then has to be
// rotated. Decoders that can decode smaller natively (JPEG's DCT scaling, WebP's scaled
// decode) hand over their already-reduced pixels, and only the remaining step runs here.
extension DecodeGeometry {
    /// The size the final, upright pixels should have for a source of `sourceSize`
    /// (as stored, before orientation).
    static func targetSize(
        sourceSize: ImageSize,
        orientation: ImageOrientation,
        frameCount: Int,
        options: ImageCoderOptions
    ) -> ImageSize {
        let applied: ImageOrientation = options.applyOrientation ? orientation : .up
        let upright = applied.orientedSize(sourceSize)
        return DecodeGeometry.targetSize(for: upright, frameCount: frameCount, options: options)
    }

    /// The size a cheap first shrink of `source` should stop at, leaving a factor of
    /// `margin` for the final resample to `target`: `target` times `margin`, or `source`
    /// itself when that is no smaller on some side.
    static func shrinkLeaving(_ margin: Int, of target: ImageSize, from source: ImageSize) -> ImageSize {
        let kept = ImageSize(width: target.width * margin, height: target.height * margin)
        return kept.width >= source.width || kept.height >= source.height ? source : kept
    }

    /// Resizes `pixels` (as stored) so that, once oriented, they measure `target` (with
    /// ``ImageCoderOptions/resamplesToThumbnailSize`` off: not at all for a first frame
    /// only, else to at most twice it), then applies the orientation when the options ask
    /// for it.
    static func finish(
        _ pixels: PixelBuffer,
        orientation: ImageOrientation,
        target: ImageSize,
        options: ImageCoderOptions
    ) -> PixelBuffer {
        let applied: ImageOrientation = options.applyOrientation ? orientation : .up
        let storedTarget = applied.orientedSize(target)   // the swap is its own inverse
        // Without the final resample a still is left as decoded, for the caller's one pass.
        // Frames of an animation are kept until that pass, and whole ones would cost the
        // source's memory per frame: they are shrunk to twice the target, so the pass left
        // still has a ratio of 2 or more.
        let kept = options.resamplesToThumbnailSize ? storedTarget
            : options.decodeFirstFrameOnly ? pixels.size : shrinkLeaving(2, of: storedTarget, from: pixels.size)
        let resized = pixels.size == kept ? pixels : pixels.resized(to: kept)
        return applied.apply(to: resized)
    }
}

extension DecodeGeometry {
    /// Where a decode reports the size of its source, upright, before any thumbnail
    /// shrink: what the image server's geometry must start from. A decode that shrinks on
    /// load rounds each side on its own, so the decoded size is not the source's shape: a
    /// 1080 × 1081 photo decoded to cover a box came out square, and imgproxy's `auto`
    /// (fill for landscape, fit for portrait) then picked fill. The first size a decode
    /// works out a target for is kept (the main image's, before any frame's).
    ///
    /// ```swift
    /// let report = DecodeGeometry.SourceSizeReport()
    /// let image = try DecodeGeometry.$sourceSizeReport.withValue(report) { try coder.decode(data, options: options) }
    /// let source = report.size ?? image.size
    /// ```
    package final class SourceSizeReport: Sendable {
        private let recorded = LockedValue<ImageSize?>(nil)

        package init() {}

        /// The source size the decode reported, if it reported one.
        package var size: ImageSize? { recorded.withLock { $0 } }

        func record(_ size: ImageSize) {
            recorded.withLock { if $0 == nil { $0 = size } }
        }
    }

    /// The report of the decode running in this task (or on this thread), if any.
    @TaskLocal package static var sourceSizeReport: SourceSizeReport?
}
