import Foundation

/// Writes GIF89a files, still or animated, from RGBA frames: ``GIFCoder``'s encoder.
///
/// - **Palette.** One global colour table for all frames, built by ``ColorQuantizer``
///   from pixels of every frame (sampled when there are many). A shared table keeps a
///   colour that stays on screen the same colour in every frame (local tables make
///   still areas flicker between slightly different colours) and lets unchanged pixels
///   be skipped. An image whose colours fit is stored exactly. `compressionQuality`
///   sets the table size (1 → 256 colours, 0 → 2), which is how `maxFileSize` is met.
/// - **Transparency.** Alpha below 128 is transparent, as browsers and gifsicle draw a
///   one-bit mask; other pixels are stored opaque. Transparent pixels decode as clear
///   black, whatever colour they had.
/// - **Dithering.** With ``ImageCoderOptions/paletteDithering`` (the default, as ImageIO
///   dithers) a quantised image is Floyd–Steinberg dithered.
/// - **Animation.** Each frame's delay is its duration in hundredths of a second, rounded,
///   and at least 2 for any positive duration: browsers (and decoders, this library's
///   included) play a delay of 0 or 1 as 0.1 s, so a 12-ms frame written as 1 played eight
///   times too slowly. The NETSCAPE2.0 extension carries the
///   loop count (0 = forever) and is left out for a loop count of 1, which is what a file
///   without it means. Frames after the first are cropped to the rectangle that changed,
///   and inside it pixels already on screen are written as the transparent entry, which
///   LZW compresses to little; see ``FramePlanner``. An animation reserves the transparent
///   entry for this (unless it would cost an exactly stored colour) and makes it the
///   screen's background entry, so decoders report an opaque animation whose later
///   frames skip pixels as having transparency (`hasAlpha`), though no pixel is clear.
///
/// Speed (release, one core of a busy 2-core machine): a 400×263 photo with dithering
/// encodes in 8–11 ms, palette, remap and LZW included.
///
/// Stateless; thread-safe.
enum GIFEncoder {
    /// The largest width or height a GIF can state (16-bit fields).
    static let maxDimension = 0xFFFF

    /// Encodes `image` with `options`: `encodeFirstFrameOnly` and `maxPixelSize` through
    /// ``EncodeConstraints/prepare(_:options:)``, then palette size searched for `maxFileSize`.
    static func encode(_ image: Image, options: ImageCoderOptions) throws -> Data {
        // GIF holds no colour profile (nor EXIF): pixels in another profile become sRGB.
        let frames = EncodedMetadata.prepare(
            EncodeConstraints.prepare(image, options: options), of: image, options: options, formatHoldsMetadata: false).frames
        let loopCount = frames.count > 1 ? image.loopCount : 1
        return try EncodeConstraints.fitFileSize(options: options) { quality in
            Data(try encode(frames, loopCount: loopCount, maxColors: paletteSize(forQuality: quality),
                            dither: options.paletteDithering))
        }
    }

    /// The palette size for a quality in 0...1: 256 at 1, down to 2 at 0.
    static func paletteSize(forQuality quality: Double) -> Int {
        min(256, max(2, Int((quality * 256).rounded())))
    }

    /// A GIF of `frames` (all the same size) that plays `loopCount` times (0 = forever),
    /// with a palette of at most `maxColors` entries (the transparent one included).
    static func encode(_ frames: [ImageFrame], loopCount: Int, maxColors: Int, dither: Bool) throws -> [UInt8] {
        guard let first = frames.first else { throw WebImageError.encodingFailed("GIF: no frames") }
        let size = first.pixels.size
        guard frames.allSatisfy({ $0.pixels.size == size }) else {
            throw WebImageError.encodingFailed("GIF: frames differ in size")
        }
        guard size.width <= maxDimension, size.height <= maxDimension else {
            throw WebImageError.encodingFailed("GIF: \(size.width)x\(size.height) exceeds GIF's limit of \(maxDimension) pixels a side")
        }
        let animated = frames.count > 1
        let palette = ColorQuantizer.palette(
            for: frames.map(\.pixels), maxColors: maxColors, preferTransparentEntry: animated)
        var lookup = ColorQuantizer.Lookup(palette)
        return try Writer.write { writer in
            try writer.putScreen(width: size.width, height: size.height,
                                 rgb: palette.rgb + (palette.transparentIndex == nil ? [] : [0, 0, 0]),
                                 background: palette.transparentIndex ?? 0)
            if animated && loopCount != 1 { try writer.putLoopCount(loopCount) }
            var planner = FramePlanner(width: size.width, height: size.height,
                                       transparentIndex: palette.transparentIndex.map(UInt8.init))
            for (index, frame) in frames.enumerated() {
                var indices = ColorQuantizer.remap(frame.pixels, palette: palette, lookup: &lookup, dither: dither)
                if dither, index > 0 {
                    planner.keepUnchangedPixels(&indices, source: frame.pixels, previousSource: frames[index - 1].pixels)
                }
                let delay = animated ? Self.delay(of: frame.duration) : 0
                if let ready = planner.add(indices, delay: delay) { try write(ready, animated: animated, to: writer) }
            }
            if let last = planner.finish() { try write(last, animated: animated, to: writer) }
        }
    }

    /// One planned frame: its control extension (always in an animation; in a still image
    /// only to declare transparency), then its rectangle of indices.
    private static func write(_ frame: FramePlanner.Frame, animated: Bool, to writer: Writer) throws {
        if animated || frame.transparentIndex != nil {
            try writer.putGraphicControl(disposal: frame.disposal, delay: frame.delay, transparentIndex: frame.transparentIndex)
        }
        var indices = frame.indices
        try writer.putImage(left: frame.rect.minX, top: frame.rect.minY,
                            width: frame.rect.width, height: frame.rect.height, indices: &indices)
    }

    /// A frame's delay in hundredths of a second. Browsers play a delay of 0 or 1 as 100 ms,
    /// so a shorter positive duration (a 12-ms WebP frame) is written as 2, the shortest
    /// they honour; the longest is the field's 655.35 s. Durations go through the clamp every
    /// encoder uses (`EncodeConstraints.milliseconds`): an infinite or NaN one is 0, as in
    /// WebP, APNG and JPEG XL.
    static func delay(of duration: TimeInterval) -> Int {
        let milliseconds = EncodeConstraints.milliseconds(duration, maximum: 655_350)
        guard milliseconds > 0 else { return 0 }
        return max(2, (milliseconds + 5) / 10)
    }
}
