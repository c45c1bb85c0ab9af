import Foundation

/// Decodes and encodes Windows bitmaps (BMP) in pure Swift.
///
/// Decodes the OS/2 core header, BITMAPINFOHEADER and the V2–V5 headers: 1-, 4- and 8-bit
/// colour tables, 16-bit (555, and bit fields such as 565), 24-bit, 32-bit (alpha from an
/// alpha mask; plain 32-bit pixels are opaque, their fourth byte reserved, as browsers
/// read them), bottom-up and top-down rows, and RLE8/RLE4. Every offset and size is checked against
/// the data, and the size against the pixel limit before anything is allocated. See
/// `BMPDecoder` for the rules where decoders differ. Embedded JPEG/PNG bitmaps are
/// ``WebImageError/unsupportedFormat(_:)``.
///
/// Encodes 32-bit BGRA with a BITMAPV4HEADER alpha mask, rows bottom-up. BMP is
/// uncompressed, so `compressionQuality` and `maxFileSize` are ignored; `maxPixelSize`
/// applies, and only the first frame of an animation is written. No metadata is written
/// (see ``ImageCoderOptions/MetadataPolicy``): pixels in a colour profile are converted to
/// sRGB first.
///
/// A value type without state: thread-safe.
///
/// ```swift
/// let image = try BMPCoder().decode(data, options: ImageCoderOptions())
/// let bmp = try BMPCoder().encode(image, as: .bmp, options: ImageCoderOptions())
/// ```
public struct BMPCoder: SingleFormatCoder {
    static let format = ImageFormat.bmp

    /// Creates the coder.
    public init() {}

    /// Decodes the bitmap, scaled to the thumbnail size or scale-down limit when asked.
    public func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        try withCheckedBytes(of: data) { bytes in
            let header = try BMPHeader(bytes)
            try DecodeGeometry.checkPixelLimit(width: header.width, height: header.height, options: options)
            let (pixels, hasAlpha) = try BMPDecoder.decode(bytes, header: header)
            let target = DecodeGeometry.targetSize(sourceSize: pixels.size, orientation: .up, frameCount: 1, options: options)
            let finished = DecodeGeometry.finish(pixels, orientation: .up, target: target, options: options)
            return Image(
                frames: [ImageFrame(pixels: finished)], format: .bmp, scale: options.scaleFactor,
                hasAlpha: hasAlpha, isThumbnail: finished.size.pixelCount < pixels.size.pixelCount
            )
        }
    }

    /// Encodes the first frame as a 32-bit bitmap with alpha.
    public func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
        try checkEncodable(format)
        // Written without metadata (a V5 header could hold a profile; ours is V4): pixels in
        // another profile become sRGB.
        let frames = EncodedMetadata.prepare(
            [EncodeConstraints.prepareFirstFrame(image, options: options)], of: image, options: options,
            formatHoldsMetadata: false).frames
        return Data(try BMPEncoder.encode(frames[0].pixels))
    }
}
