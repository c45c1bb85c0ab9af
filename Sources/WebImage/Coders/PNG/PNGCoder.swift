import CPNG
import Foundation

/// Decodes and encodes PNG and animated PNG (APNG) with libpng.
///
/// Every colour type and bit depth decodes to 8-bit RGBA: palettes and tRNS become alpha,
/// 16-bit samples are scaled to 8 bits with rounding, and the colour description (`iCCP`,
/// else `sRGB`, else `gAMA`/`cHRM`) is converted to sRGB as browsers do (see
/// ``ImageCoderOptions/keepsColorProfile``). APNG frames are reassembled from
/// `fcTL`/`fdAT` chunks and composited; the orientation comes from the `eXIf` chunk (else from the
/// XMP `iTXt` chunk's `tiff:Orientation`, as Pillow reads it), which
/// ``ImageCoderOptions/readsMetadata`` keeps with the XMP `iTXt` chunk.
/// Truncated or corrupt image data throws ``WebImageError/badImageData(_:)`` (no partial
/// images); data after the last image data chunk is not needed.
///
/// Encoding writes 8-bit RGBA, or RGB when no pixel is transparent, at zlib level 6; an
/// animated image becomes an APNG with its durations and loop count; the profile (`iCCP`),
/// EXIF (`eXIf`) and XMP (`iTXt`) are written as ``ImageCoderOptions/MetadataPolicy`` says.
/// PNG is lossless, so `compressionQuality` and `maxFileSize` do not apply and are ignored,
/// as SDWebImage's PNG encoding does; `maxPixelSize` and `encodeFirstFrameOnly` are honoured.
///
/// A value type without state: thread-safe.
///
/// ```swift
/// let image = try PNGCoder().decode(data, options: ImageCoderOptions())
/// let png = try PNGCoder().encode(image, as: .png, options: ImageCoderOptions())
/// ```
public struct PNGCoder: SingleFormatCoder {
    static let format = ImageFormat.png

    /// Creates the coder.
    public init() {}

    /// Decodes a PNG, or every frame of an APNG (only the default image with
    /// `decodeFirstFrameOnly`, which is the IDAT image even when the animation skips it).
    public func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        try withCheckedBytes(of: data) { bytes in
            let layout = try PNGChunks.scan(bytes)
            let header = try PNGDecoder.header(of: layout, in: bytes)
            try DecodeGeometry.checkPixelLimit(width: header.width, height: header.height, options: options)
            // The EXIF block is found once (ImageMagick's raw profile may need inflating) for
            // both the orientation and the kept metadata.
            let (orientation, metadata) = withEXIF(in: layout, bytes: bytes) { exif in
                (self.orientation(exif: exif, layout: layout, bytes: bytes),
                 self.metadata(exif: exif, layout: layout, bytes: bytes, options: options))
            }
            let hasAlpha = header.hasAlphaChannel || hasTransparencyChunk(in: layout)
            let source = ImageSize(width: header.width, height: header.height)

            if !options.decodeFirstFrameOnly,
               let animation = try APNGDecoder.animation(in: layout, bytes: bytes, header: header, options: options) {
                var frames = try APNGDecoder.decodeFrames(
                    of: animation, bytes: bytes, header: header, orientation: orientation, options: options
                )
                let kept = ColorConversion.apply(PNGDecoder.colorProfile(bytes), to: &frames, options: options)
                return Image(
                    frames: frames, format: .png, scale: options.scaleFactor, loopCount: animation.playCount,
                    orientation: orientation, hasAlpha: hasAlpha || animation.leavesClearPixels(canvas: source),
                    isThumbnail: frames[0].pixels.size.pixelCount < source.pixelCount, colorProfile: kept,
                    metadata: metadata
                )
            }

            let (pixels, profile) = try PNGDecoder.decodeWithColor(bytes, options: options)
            let target = DecodeGeometry.targetSize(sourceSize: source, orientation: orientation, frameCount: 1, options: options)
            // Converted after the resize, so a thumbnail converts only its own pixels.
            var finished = DecodeGeometry.finish(pixels, orientation: orientation, target: target, options: options)
            let kept = ColorConversion.apply(profile, to: &finished, options: options)
            return Image(
                frames: [ImageFrame(pixels: finished)], format: .png, scale: options.scaleFactor,
                orientation: orientation, hasAlpha: hasAlpha,
                isThumbnail: finished.size.pixelCount < source.pixelCount, colorProfile: kept,
                metadata: metadata
            )
        }
    }

    /// A ``PNGProgressiveDecoder``, which shows the image while it downloads.
    public func makeProgressiveDecoder() -> (any ProgressiveImageCoder)? {
        PNGProgressiveDecoder()
    }

    /// An ``APNGFrameSource`` for an animated PNG (a still PNG is decoded whole).
    public func makeAnimatedImageCoder(for data: Data, options: ImageCoderOptions) throws -> (any AnimatedImageCoder)? {
        APNGFrameSource.canDecodeAnimation(data) ? try APNGFrameSource(animatedImageData: data, options: options) : nil
    }

    /// Encodes as PNG, or as APNG when the image has several frames and
    /// `encodeFirstFrameOnly` is not set.
    public func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
        try checkEncodable(format)
        let frames = EncodeConstraints.prepare(image, options: options)
        // RGB is a quarter smaller than RGBA, so alpha is written only when some pixel uses it.
        let (prepared, metadata) = EncodedMetadata.prepare(frames, of: image, options: options)
        let keepAlpha = prepared.contains { $0.pixels.containsTransparency }
        if prepared.count == 1 {
            return Data(try PNGEncoder.encode(prepared[0].pixels, keepAlpha: keepAlpha, metadata: metadata))
        }
        return Data(try PNGEncoder.encodeAnimation(
            prepared, loopCount: image.loopCount, keepAlpha: keepAlpha, metadata: metadata))
    }

    // MARK: Metadata

    /// Runs `body` with the EXIF block: the first `eXIf` chunk's payload, else
    /// ImageMagick's raw EXIF profile text decoded (``PNGRawProfile``, as Pillow reads it),
    /// else `nil`.
    func withEXIF<R>(in layout: PNGChunks.Layout, bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        if let chunk = layout.chunks.first(where: { $0.type == PNGChunks.eXIf }) {
            return body(UnsafeRawBufferPointer(rebasing: bytes[chunk.payload]))
        }
        guard let raw = PNGRawProfile.exif(in: layout, bytes: bytes) else { return body(nil) }
        return raw.withUnsafeBytes(body)
    }

    /// The orientation: the EXIF block's (see ``withEXIF(in:bytes:_:)``), else an XMP
    /// packet's `tiff:Orientation`; `.up` when there is none.
    func orientation(in layout: PNGChunks.Layout, bytes: UnsafeRawBufferPointer) -> ImageOrientation {
        withEXIF(in: layout, bytes: bytes) { orientation(exif: $0, layout: layout, bytes: bytes) }
    }

    /// ``orientation(in:bytes:)`` with the EXIF block already found.
    private func orientation(exif: UnsafeRawBufferPointer?, layout: PNGChunks.Layout, bytes: UnsafeRawBufferPointer) -> ImageOrientation {
        if let exif, let orientation = EXIFOrientationReader.orientation(inTIFF: exif) { return orientation }
        // No EXIF orientation: XMP's, as Pillow's exif_transpose (and our JPEG decode) read it.
        return PNGChunks.withXMPPacket(in: layout, bytes: bytes) { $0.flatMap(ImageMetadata.xmpOrientation(in:)) } ?? .up
    }

    /// The EXIF block and the XMP `iTXt` packet, read only with
    /// ``ImageCoderOptions/readsMetadata``.
    private func metadata(
        exif: UnsafeRawBufferPointer?, layout: PNGChunks.Layout, bytes: UnsafeRawBufferPointer, options: ImageCoderOptions
    ) -> ImageMetadata {
        guard options.readsMetadata else { return ImageMetadata() }
        return PNGChunks.withXMPPacket(in: layout, bytes: bytes) { xmp in
            ImageMetadata.read(exif: exif, xmp: xmp, resetOrientation: options.applyOrientation)
        }
    }

    /// Whether a tRNS chunk comes before the image data (where it must be to count).
    func hasTransparencyChunk(in layout: PNGChunks.Layout) -> Bool {
        for chunk in layout.chunks {
            if chunk.type == PNGChunks.IDAT { return false }
            if chunk.type == PNGChunks.tRNS { return true }
        }
        return false
    }
}

extension PNGCoder {
    /// libpng, as the loaded library reports itself.
    static var linkedLibrary: LinkedLibrary {
        LinkedLibrary(name: "libpng", version: String(cString: cpng_library_version()))
    }
}
