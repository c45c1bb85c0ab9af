import Foundation

/// A decoded image: one or more frames of RGBA pixels and what is known about them.
///
/// `Image` is what every stage of a load hands to the next: coders make it, transformers
/// make new ones from it, caches keep it. It is immutable, so one instance is shared freely
/// across tasks and threads.
///
/// ```swift
/// let image = try CodersManager.shared.decode(data)
/// print(image.format, image.size, image.frameCount, image.memoryCost)
/// ```
public final class Image: Sendable {
    /// The frames, in display order; never empty. A still image has exactly one.
    public let frames: [ImageFrame]
    /// The format the pixels were decoded from (``ImageFormat/undefined`` for images made in memory).
    public let format: ImageFormat
    /// Points-to-pixels scale (SDWebImage's `@2x` convention); 1 unless a caller set it.
    public let scale: Double
    /// How many times an animation plays; 0 means forever. 1 for still images.
    public let loopCount: Int
    /// The EXIF orientation found in the source. When the decoder applied it, the pixels
    /// are already upright and this only reports what the file said.
    public let orientation: ImageOrientation
    /// Whether the source declares an alpha channel (or a transparent palette entry).
    public let hasAlpha: Bool
    /// Whether the pixels were decoded at a reduced size (thumbnail or scale-down).
    public let isThumbnail: Bool
    /// Whether a transformer produced this image.
    public let isTransformed: Bool
    /// Whether this is a partial image from data still arriving.
    public let isIncremental: Bool
    /// The colour profile the pixels are in, when it is not sRGB: set only when decoding
    /// with ``ImageCoderOptions/keepsColorProfile`` (otherwise decoders convert to sRGB),
    /// kept by transformers, and embedded by the JPEG, PNG, WebP, AVIF and HEIC encoders
    /// unless ``ImageCoderOptions/MetadataPolicy/strip`` says otherwise.
    public let colorProfile: ColorProfile?
    /// The source's EXIF and XMP blocks: empty unless decoded with
    /// ``ImageCoderOptions/readsMetadata``; kept by transformers; written by encoders under
    /// ``ImageCoderOptions/MetadataPolicy/all``.
    public let metadata: ImageMetadata
    /// The animation this image is the poster of, when it was decoded with
    /// ``ImageCoderOptions/decodesFramesOnDemand`` (the manager's
    /// ``ImageContext/decodesFramesOnDemand``): ``frames`` then holds only the first frame,
    /// and the animation decodes the others when asked. `nil` otherwise, and always for a
    /// still image.
    public let animatedImage: AnimatedImage?

    /// Creates an image. `frames` must not be empty; with `animatedImage`, they are its
    /// poster frame (see ``init(animation:)``).
    public init(
        frames: [ImageFrame],
        format: ImageFormat = .undefined,
        scale: Double = 1,
        loopCount: Int = 0,
        orientation: ImageOrientation = .up,
        hasAlpha: Bool = true,
        isThumbnail: Bool = false,
        isTransformed: Bool = false,
        isIncremental: Bool = false,
        colorProfile: ColorProfile? = nil,
        metadata: ImageMetadata = ImageMetadata(),
        animatedImage: AnimatedImage? = nil
    ) {
        precondition(!frames.isEmpty, "an Image needs at least one frame")
        self.frames = frames
        self.format = format
        self.scale = scale > 0 ? scale : 1
        self.loopCount = frames.count > 1 ? max(0, loopCount) : 1
        self.orientation = orientation
        self.hasAlpha = hasAlpha
        self.isThumbnail = isThumbnail
        self.isTransformed = isTransformed
        self.isIncremental = isIncremental
        self.colorProfile = colorProfile
        self.metadata = metadata
        self.animatedImage = animatedImage
    }

    /// The poster frame of `animation`, carrying it as ``animatedImage``: what a
    /// ``ImageCoderOptions/decodesFramesOnDemand`` decode returns.
    public convenience init(animation: AnimatedImage) {
        self.init(
            frames: [ImageFrame(pixels: animation.posterFrame, duration: animation.duration(at: 0))],
            format: animation.format, scale: animation.scale, orientation: animation.properties.orientation,
            hasAlpha: animation.properties.hasAlpha, isThumbnail: animation.properties.isThumbnail,
            animatedImage: animation)
    }

    /// A still image from one pixel buffer.
    public convenience init(
        pixels: PixelBuffer,
        format: ImageFormat = .undefined,
        orientation: ImageOrientation = .up,
        hasAlpha: Bool = true
    ) {
        self.init(frames: [ImageFrame(pixels: pixels)], format: format, orientation: orientation, hasAlpha: hasAlpha)
    }

    /// The first frame's pixels: the still image, or the poster frame of an animation.
    public var pixels: PixelBuffer { frames[0].pixels }
    /// Size in pixels (of the first frame; all frames of an animation share the canvas size).
    public var size: ImageSize { frames[0].pixels.size }
    /// Number of frames.
    public var frameCount: Int { frames.count }
    /// Whether there is more than one frame.
    public var isAnimated: Bool { frames.count > 1 }
    /// Sum of frame durations in seconds.
    public var duration: TimeInterval { frames.reduce(0) { $0 + $1.duration } }
    /// The bytes of pixel storage this image really holds; caches charge this. For the
    /// poster of an ``animatedImage``, the frames that animation holds (the poster, and the
    /// others once preloaded), read when asked: a cache charges what was held when it stored.
    public var memoryCost: Int {
        animatedImage?.memoryCost ?? frames.reduce(0) { $0 + $1.pixels.memoryCost }
    }

    /// Whether this image can answer a query that decodes with
    /// ``ImageCoderOptions/decodesFramesOnDemand`` set to `framesOnDemand`: an animation
    /// decoded whole must not stand in for a lazy one (it would charge every frame), nor a
    /// poster for a caller that iterates ``frames`` (SDWebImage's check of the cached
    /// image's class against `animatedImageClass`). Still images suit both.
    func suitsDecode(framesOnDemand: Bool) -> Bool {
        if animatedImage != nil { return framesOnDemand }
        return !(framesOnDemand && isAnimated)
    }

    /// This image again, marked as a partial image from data still arriving.
    func markedIncremental() -> Image {
        Image(
            frames: frames, format: format, scale: scale, loopCount: loopCount, orientation: orientation,
            hasAlpha: hasAlpha, isThumbnail: isThumbnail, isTransformed: isTransformed, isIncremental: true,
            colorProfile: colorProfile, metadata: metadata)
    }
}

/// One frame of an image: its pixels and how long it stays on screen.
///
/// A still image has one frame with a duration of 0.
///
/// ```swift
/// for frame in image.frames { print(frame.pixels.size, frame.duration) }
/// ```
public struct ImageFrame: Sendable, Equatable {
    /// The frame's pixels, composited onto the full canvas.
    public var pixels: PixelBuffer
    /// Display time in seconds; 0 for still images.
    public var duration: TimeInterval

    /// Creates a frame.
    public init(pixels: PixelBuffer, duration: TimeInterval = 0) {
        self.pixels = pixels
        self.duration = duration
    }
}
