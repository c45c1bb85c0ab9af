import Foundation

/// An animated image whose frames are decoded on demand from the original file.
///
/// The counterpart of SDWebImage's `SDAnimatedImage`: it keeps the encoded bytes
/// (``animatedImageData``, for the disk cache) and an ``AnimatedImageCoder`` that decodes
/// frame N when asked, so holding a long GIF costs its file plus the frames actually kept:
/// the poster frame, and every frame after ``preloadAllFrames()``. ``memoryCost`` counts
/// exactly those. ``AnimatedImagePlayer`` plays one with a bounded frame buffer.
///
/// Thread-safe: immutable apart from the preloaded frames, which live behind a `LockedValue`;
/// the coder serialises its own decodes.
///
/// ```swift
/// let animation = try AnimatedImage(data: gifData)
/// print(animation.frameCount, animation.loopCount, animation.durations)
/// let frame = try animation.frame(at: 12)
/// ```
public final class AnimatedImage: Sendable {
    /// The coder types tried, in order, by ``init(data:options:coder:)``.
    public static let coderTypes: [any AnimatedImageCoder.Type] = [
        GIFFrameSource.self, APNGFrameSource.self, WebPFrameSource.self, AVIFFrameSource.self,
    ]

    /// The original file; `nil` for an animation made from decoded frames.
    public let animatedImageData: Data?
    /// Frame count, durations, loop count, size and the rest, known without decoding.
    public let properties: AnimatedImageProperties
    /// Points-to-pixels scale (from `options.scaleFactor`).
    public let scale: Double
    /// The first frame, decoded when the image was made and always held.
    public let posterFrame: PixelBuffer
    /// The most pixels all frames together may have when every one is held at once
    /// (``preloadAllFrames()``, ``image()``): the decode's ``ImageCoderOptions/pixelLimit``.
    /// A coder that decodes frames on demand checks each canvas alone; holding them all
    /// stays within what a one-shot decode of the file would have been allowed (a 1,000 ×
    /// 1,000 GIF of 10,000 tiny frames is a 140 KB file and 40 GB of frames).
    public let pixelLimit: Int
    private let coder: (any AnimatedImageCoder)?
    /// Frames held besides the poster (all of them after ``preloadAllFrames()``).
    private let preloaded: LockedValue<[Int: PixelBuffer]>

    /// Opens `data` lazily with the first of ``coderTypes`` that accepts it. Other files
    /// (still PNG and WebP, JPEG, ...) and `decodeFirstFrameOnly` are decoded at once with
    /// `coder` (default ``CodersManager/shared``) and hold their frames. `preloadAllFrames`
    /// decodes every frame before returning. Throws what the coder throws.
    public convenience init(data: Data, options: ImageCoderOptions = ImageCoderOptions(), coder: any ImageCoder = CodersManager.shared) throws {
        if !options.decodeFirstFrameOnly, let type = Self.coderTypes.first(where: { $0.canDecodeAnimation(data) }) {
            try self.init(coder: type.init(animatedImageData: data, options: options), scale: options.scaleFactor, pixelLimit: options.pixelLimit)
        } else {
            self.init(image: try coder.decode(data, options: options), data: data)
        }
        if options.preloadAllFrames { try preloadAllFrames() }
    }

    /// Wraps an animated image coder; decodes its first frame as the poster. `pixelLimit`
    /// bounds all frames held at once (see ``pixelLimit``).
    public init(coder: any AnimatedImageCoder, scale: Double = 1, pixelLimit: Int = ImageCoderOptions().pixelLimit) throws {
        posterFrame = try coder.frame(at: 0)
        self.coder = coder
        self.pixelLimit = pixelLimit
        properties = coder.properties
        animatedImageData = coder.animatedImageData
        self.scale = scale > 0 ? scale : 1
        preloaded = LockedValue([:])
    }

    /// An animation over frames already decoded (all of them held), with `data` as the
    /// file they came from when there is one. An animation holds sRGB pixels and no
    /// metadata: frames an image kept in its own colour space (``Image/colorProfile``) are
    /// converted, as they would be shown wrongly without the profile.
    public init(image: Image, data: Data? = nil) {
        coder = nil
        // Every frame is held already: there is nothing left to bound.
        pixelLimit = .max
        animatedImageData = data
        scale = image.scale
        var pixels = image.frames.map(\.pixels)
        if let profile = image.colorProfile {
            for index in pixels.indices { _ = ColorConversion.apply(profile, to: &pixels[index], options: ImageCoderOptions()) }
        }
        posterFrame = pixels[0]
        properties = AnimatedImageProperties(
            format: image.format, loopCount: image.loopCount, durations: image.frames.map(\.duration),
            frameSize: image.size, hasAlpha: image.hasAlpha, orientation: image.orientation, isThumbnail: image.isThumbnail)
        var frames: [Int: PixelBuffer] = [:]
        for (index, frame) in pixels.enumerated().dropFirst() { frames[index] = frame }
        preloaded = LockedValue(frames)
    }

    /// The format the frames come from.
    public var format: ImageFormat { properties.format }
    /// Number of frames.
    public var frameCount: Int { properties.frameCount }
    /// How many times the animation plays; 0 means forever.
    public var loopCount: Int { properties.loopCount }
    /// Each frame's display time in seconds.
    public var durations: [TimeInterval] { properties.durations }
    /// Size of every frame in pixels.
    public var size: ImageSize { properties.frameSize }
    /// Whether there is more than one frame.
    public var isAnimated: Bool { frameCount > 1 }

    /// How long frame `index` is shown, in seconds; 0 out of range.
    public func duration(at index: Int) -> TimeInterval {
        properties.durations.indices.contains(index) ? properties.durations[index] : 0
    }

    /// Frame `index`: a held frame at once, otherwise decoded now by the coder (which may
    /// take a while and serialises with other decodes of this image).
    public func frame(at index: Int) throws -> PixelBuffer {
        if let held = heldFrame(at: index) { return held }
        guard let coder, index >= 0, index < frameCount else {
            throw WebImageError.badImageData("frame \(index) is out of range (0..<\(frameCount))")
        }
        return try coder.frame(at: index)
    }

    /// Frame `index` if it is held (the poster, or a preloaded frame), without decoding.
    public func heldFrame(at index: Int) -> PixelBuffer? {
        index == 0 ? posterFrame : preloaded.withLock { $0[index] }
    }

    /// Decodes and holds every frame not yet held, in order (the cheap order for
    /// composited formats). After this, ``frame(at:)`` never decodes.
    public func preloadAllFrames() throws {
        guard coder != nil else { return }
        try checkAllFramesFit()
        for index in 1..<max(1, frameCount) where heldFrame(at: index) == nil {
            let pixels = try frame(at: index)
            preloaded.withLock { $0[index] = pixels }
        }
    }

    /// Drops the preloaded frames of a lazily decoded animation (the poster stays).
    /// An animation made from decoded frames has nothing to decode them again from, so
    /// it keeps them.
    public func unloadAllFrames() {
        guard coder != nil else { return }
        preloaded.withLock { $0.removeAll() }
    }

    /// Whether every frame is held, so playing needs no decoding.
    public var isAllFramesLoaded: Bool {
        preloaded.withLock { $0.count } == frameCount - 1
    }

    /// Bytes of pixels held: the poster and the preloaded frames. The coder's working
    /// canvas and the file's bytes are not counted, as SDWebImage does not count them.
    public var memoryCost: Int {
        posterFrame.memoryCost + preloaded.withLock { $0.values.reduce(0) { $0 + $1.memoryCost } }
    }

    /// A still ``Image`` of the poster frame, with this animation's metadata.
    public var posterImage: Image {
        Image(frames: [ImageFrame(pixels: posterFrame)], format: format, scale: scale, loopCount: 1,
              orientation: properties.orientation, hasAlpha: properties.hasAlpha, isThumbnail: properties.isThumbnail)
    }

    /// Every frame as an ``Image`` (decoding those not held), for code that wants frames
    /// in an array: encoders, transformers.
    public func image() throws -> Image {
        if coder != nil { try checkAllFramesFit() }
        let frames = try (0..<frameCount).map { ImageFrame(pixels: try frame(at: $0), duration: duration(at: $0)) }
        return Image(frames: frames, format: format, scale: scale, loopCount: loopCount,
                     orientation: properties.orientation, hasAlpha: properties.hasAlpha, isThumbnail: properties.isThumbnail)
    }

    /// Throws ``WebImageError/imageTooLarge(width:height:limit:)`` when every frame held at
    /// once would pass ``pixelLimit``; checked before any frame is decoded.
    private func checkAllFramesFit() throws {
        let (all, overflow) = posterFrame.size.pixelCount.multipliedReportingOverflow(by: frameCount)
        guard !overflow, all <= pixelLimit else {
            throw WebImageError.imageTooLarge(width: posterFrame.width, height: posterFrame.height, limit: pixelLimit)
        }
    }
}
