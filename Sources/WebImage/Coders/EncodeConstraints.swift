import Foundation

/// The encode options every encoder honours the same way: `maxPixelSize`, `maxFileSize` and
/// `encodeFirstFrameOnly` (the background for flattening alpha is
/// ``PixelBuffer/flattened(onto:)``, which the JPEG coder calls).
///
/// Encoders call ``prepare(_:options:)`` first and wrap their quality-dependent encode in
/// ``fitFileSize(options:encode:)``, so the search on quality is written once.
enum EncodeConstraints {
    /// A frame's duration in whole milliseconds, at most `maximum`, for an encoder's integer
    /// field: a negative, NaN or infinite duration (a frame an API caller made) is 0,
    /// never a trap in the conversion.
    static func milliseconds(_ duration: TimeInterval, maximum: Int = Int(UInt32.max)) -> Int {
        guard duration.isFinite, duration > 0 else { return 0 }
        return Int(min(duration * 1000, Double(maximum)).rounded())
    }

    /// The frames to encode: the first only when asked, each scaled down (keeping the
    /// aspect ratio, never up) to fit `maxPixelSize`.
    static func prepare(_ image: Image, options: ImageCoderOptions) -> [ImageFrame] {
        let frames = options.encodeFirstFrameOnly ? [image.frames[0]] : image.frames
        guard let box = options.maxPixelSize, box.width > 0, box.height > 0 else { return frames }
        let target = DecodeGeometry.thumbnailSize(for: image.size, in: box, preserveAspectRatio: true)
        guard target != image.size else { return frames }
        return frames.map { ImageFrame(pixels: $0.pixels.resized(to: target), duration: $0.duration) }
    }

    /// The first frame, scaled as ``prepare(_:options:)`` scales it, for the formats that
    /// hold one frame (JPEG, BMP) whatever `encodeFirstFrameOnly` says.
    static func prepareFirstFrame(_ image: Image, options: ImageCoderOptions) -> ImageFrame {
        var firstOnly = options
        firstOnly.encodeFirstFrameOnly = true
        return prepare(image, options: firstOnly)[0]
    }

    /// Encodes at `options.compressionQuality`; when the result exceeds `maxFileSize`,
    /// binary-searches lower qualities for the best one that fits. When even quality 0 is
    /// too large, returns that smallest encoding rather than failing, as SDWebImage does.
    static func fitFileSize(options: ImageCoderOptions, encode: (Double) throws -> Data) throws -> Data {
        let best = min(1, max(0, options.compressionQuality))
        let first = try encode(best)
        guard let limit = options.maxFileSize, first.count > limit else { return first }
        var low = 0.0, high = best
        var smallest = try encode(0)
        guard smallest.count <= limit else { return smallest }
        // Seven halvings put the chosen quality within 1% of the best that fits.
        for _ in 0..<7 {
            let middle = (low + high) / 2
            let candidate = try encode(middle)
            if candidate.count <= limit {
                smallest = candidate
                low = middle
            } else {
                high = middle
            }
        }
        return smallest
    }

}
