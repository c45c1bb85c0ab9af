import Foundation

/// Something that turns one image into another: resize, crop, blur, or your own.
///
/// A transformer runs after decoding and before caching: the manager stores its result
/// under the original cache key plus ``key`` (SDWebImage's `image-KEY.png` form), so two
/// transformers that can give different pixels must have different keys, and one
/// transformer must give the same key in every process. The built-ins use SDWebImage's
/// key formats (see `TransformerKey`).
///
/// Implementations must be immutable values (they are shared across tasks); `transform`
/// may run on any thread, and concurrently for different images.
///
/// ```swift
/// let thumb = ResizeTransformer(size: ImageSize(width: 256, height: 256), mode: .aspectFill)
/// let rounded = try PipelineTransformer([thumb, RoundCornerTransformer(radius: 16)]).transform(image)
/// ```
public protocol ImageTransformer: Sendable {
    /// Identifies the transformation and all its parameters; stable across processes.
    var key: String { get }

    /// Returns the transformed image, with ``Image/isTransformed`` set. Built-in transformers
    /// transform every frame they are given; choose which frames with
    /// ``ImageTransformer/transform(_:animated:)``.
    func transform(_ image: Image) throws -> Image
}

extension Image {
    /// A new image with `frames` and everything else known about this one, marked as
    /// transformed. Alpha is re-checked only when the source had none: a transformer can
    /// add transparency (padding, corners) but never prove that the source's is gone.
    func transformed(into frames: [ImageFrame]) -> Image {
        let alpha = hasAlpha || frames.contains { $0.pixels.containsTransparency }
        return Image(
            frames: frames, format: format, scale: scale, loopCount: loopCount,
            orientation: orientation, hasAlpha: alpha, isThumbnail: isThumbnail,
            isTransformed: true, isIncremental: isIncremental, colorProfile: colorProfile,
            metadata: metadata
        )
    }
}

/// Which frames of an animated image a transformer touches.
///
/// Transforming a long animation costs a full transform per frame, so by default only the
/// poster frame is transformed, giving a still image; ``everyFrame`` is what the manager's
/// `transformAnimatedImage` option asks for. SDWebImage without that option leaves an
/// animated image untransformed altogether; ``untouched`` gives that behaviour.
///
/// ```swift
/// let still = try blur.transform(gif, animated: .posterFrame)   // one frame, blurred
/// let all = try blur.transform(gif, animated: .everyFrame)      // every frame blurred
/// ```
public enum AnimatedImageTransform: Sendable, Hashable {
    /// Transform the first frame only and return it as a still image (the default).
    case posterFrame
    /// Transform every frame, keeping durations and the loop count.
    case everyFrame
    /// Return an animated image unchanged (not marked as transformed), as SDWebImage does.
    case untouched
}

extension ImageTransformer {
    /// Transforms `image`, choosing what happens to an animation with `animated`. A still
    /// image is always transformed.
    ///
    /// An animation decoded on demand (``Image/animatedImage``) counts as animated; to
    /// transform every frame, its frames are decoded first.
    public func transform(_ image: Image, animated: AnimatedImageTransform) throws -> Image {
        let lazyAnimation = image.animatedImage.flatMap { $0.isAnimated ? $0 : nil }
        guard image.isAnimated || lazyAnimation != nil else { return try transform(image) }
        switch animated {
        case .everyFrame:
            return try transform(lazyAnimation?.image() ?? image)
        case .untouched:
            return image
        case .posterFrame:
            let poster = Image(
                frames: [ImageFrame(pixels: image.pixels)], format: image.format, scale: image.scale,
                orientation: image.orientation, hasAlpha: image.hasAlpha, isThumbnail: image.isThumbnail,
                isIncremental: image.isIncremental, colorProfile: image.colorProfile,
                metadata: image.metadata
            )
            return try transform(poster)
        }
    }
}

/// A transformer that works on one frame's pixels at a time; every built-in one is.
///
/// Conforming types implement ``transform(pixels:)`` and get ``ImageTransformer/transform(_:)``
/// for free: every frame of the image is transformed alike, durations and loop count are
/// kept, and ``Image/hasAlpha`` becomes true when the result has transparent pixels the
/// source did not (padding, rounded corners, a rotation's empty corners).
///
/// ```swift
/// let flipped: PixelBuffer = try FlipTransformer(horizontal: true).transform(pixels: buffer)
/// ```
public protocol PixelTransformer: ImageTransformer {
    /// Returns the transformed pixels of one frame. Thread-safe.
    func transform(pixels: PixelBuffer) throws -> PixelBuffer
}

extension PixelTransformer {
    /// Transforms every frame of `image` with ``transform(pixels:)``.
    public func transform(_ image: Image) throws -> Image {
        let frames = try image.frames.map { frame in
            ImageFrame(pixels: try transform(pixels: frame.pixels), duration: frame.duration)
        }
        return image.transformed(into: frames)
    }
}

/// Several transformers applied in order, as one.
///
/// Its key is its members' keys joined with `-`, SDWebImage's
/// `SDImagePipelineTransformer` format, so the order is part of the key. An empty
/// pipeline has the empty key and returns its input marked as transformed.
/// Immutable and thread-safe.
///
/// ```swift
/// let pipeline = PipelineTransformer([ResizeTransformer(size: size), BlurTransformer(radius: 4)])
/// let result = try pipeline.transform(image)
/// ```
public struct PipelineTransformer: ImageTransformer {
    /// The transformers, first applied first.
    public let transformers: [any ImageTransformer]

    /// Creates a pipeline running `transformers` from first to last.
    public init(_ transformers: [any ImageTransformer]) {
        self.transformers = transformers
    }

    public var key: String { transformers.map(\.key).joined(separator: "-") }

    public func transform(_ image: Image) throws -> Image {
        guard !transformers.isEmpty else { return image.transformed(into: image.frames) }
        return try transformers.reduce(image) { try $1.transform($0) }
    }
}

/// Formats the parameters of the built-in transformers' keys the way SDWebImage does.
///
/// SDWebImage prints numbers with `%f` (six decimals), booleans as `0`/`1` and colours as
/// `#aarrggbb`. `%f` alone would give 0.1234561 and 0.1234562 one key, so a number that
/// `%f` does not reproduce exactly is printed in Swift's shortest round-trip form instead:
/// keys stay SDWebImage's for ordinary values and distinct for every distinct value.
enum TransformerKey {
    /// `%f` when it reads back as the same double, otherwise the shortest exact form.
    static func number(_ value: Double) -> String {
        let fixed = String(format: "%f", value)
        return Double(fixed) == value ? fixed : "\(value)"
    }

    /// `{w,h}` as CoreGraphics prints a size.
    static func size(_ size: ImageSize) -> String {
        "{\(number(Double(size.width))),\(number(Double(size.height)))}"
    }

    /// SDWebImage's `sd_hexString`: `#aarrggbb`, lowercase.
    static func color(_ color: RGBAColor) -> String {
        let value = UInt32(color.alpha) << 24 | UInt32(color.red) << 16 | UInt32(color.green) << 8 | UInt32(color.blue)
        let hex = String(value, radix: 16)
        return "#" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// `1` or `0`, as `%d` prints a `BOOL`.
    static func flag(_ value: Bool) -> String { value ? "1" : "0" }
}

/// How large a transformer's result may be, whatever asked for it (a transform spec typed
/// or read from elsewhere, a chain of steps each within reason).
enum TransformLimit {
    /// 200 megapixels (800 MB of RGBA): twice the decoders' default pixel limit, so any
    /// image a decoder gives by default can still be turned 45° (which needs up to twice
    /// its pixels), while `rotate=45` twenty times in a row (which would need 44 GB) cannot.
    static let pixelCount = 200_000_000

    /// Throws ``WebImageError/transformFailed(_:)`` when `size` has more pixels than `limit`
    /// (``pixelCount`` by default); `what` names the step for the message.
    static func check(_ size: ImageSize, _ what: @autoclosure () -> String, limit: Int = pixelCount) throws {
        guard size.pixelCount <= limit else {
            throw WebImageError.transformFailed("\(what()) would make \(size.width)x\(size.height) pixels, over the limit of \(limit)")
        }
    }
}
