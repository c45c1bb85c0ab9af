import CJPEG
import Foundation

/// Decodes and encodes baseline and progressive JPEG with libjpeg-turbo.
///
/// Decoding goes straight to RGBA in the final pixel storage (libjpeg-turbo converts YCbCr,
/// RGB and grayscale itself; CMYK and YCCK are converted here, honouring Adobe's inverted
/// CMYK, through the embedded ICC profile when there is one), converts an embedded RGB or
/// grey ICC profile to sRGB (see ``ImageCoderOptions/keepsColorProfile``), applies the EXIF orientation and, for thumbnails and `scaleDownLimitBytes`,
/// decodes at a reduced DCT scale (M/8) before the exact resize. Encoding flattens alpha
/// onto ``ImageCoderOptions/backgroundColor`` and writes 4:2:0 with optimised Huffman
/// tables, with what ``ImageCoderOptions/MetadataPolicy`` keeps (EXIF and XMP in `APP1`,
/// the profile in `APP2`); ``ImageCoderOptions/readsMetadata`` reads the `APP1` blocks. Thread-safe: the coder holds no state, and each call owns its libjpeg objects.
///
/// Truncated or damaged data gives a partial image (not marked incremental) when the data
/// went wrong after at least the first band of 8–16 pixel rows (one iMCU row) decoded:
/// libjpeg fills the rest with grey, as browsers show it. Damage before that, and every
/// fatal libjpeg error, gives ``WebImageError/badImageData(_:)``, as does a progressive
/// file of more than 500 scans (a denial-of-service pattern).
///
/// ```swift
/// let image = try JPEGCoder().decode(data, options: ImageCoderOptions())
/// let jpeg = try JPEGCoder().encode(image, as: .jpeg, options: ImageCoderOptions())
/// ```
public struct JPEGCoder: SingleFormatCoder {
    static let format = ImageFormat.jpeg

    /// Creates the coder.
    public init() {}

    /// Decodes the JPEG in `data` to one upright RGBA frame.
    public func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        let decoded = try decodeFrame(data, options: options)
        return Image(
            frames: [ImageFrame(pixels: decoded.pixels)],
            format: .jpeg,
            scale: options.scaleFactor,
            loopCount: 1,
            orientation: decoded.plan.orientation,
            hasAlpha: false,
            isThumbnail: decoded.plan.isThumbnail,
            colorProfile: decoded.colorProfile,
            metadata: decoded.metadata
        )
    }

    /// A ``JPEGProgressiveDecoder``, which shows the image while it downloads.
    public func makeProgressiveDecoder() -> (any ProgressiveImageCoder)? {
        JPEGProgressiveDecoder()
    }

    /// Encodes the first frame of `image` as a JPEG.
    ///
    /// Quality is `compressionQuality × 100` on libjpeg's 1–100 scale; `maxPixelSize` and
    /// `maxFileSize` are applied through `EncodeConstraints`; transparent pixels are
    /// composited onto `backgroundColor` (white by default), since JPEG has no alpha.
    public func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
        try checkEncodable(format)
        // JPEG holds one frame: scale only that one.
        let (frames, metadata) = EncodedMetadata.prepare(
            [EncodeConstraints.prepareFirstFrame(image, options: options)], of: image, options: options)
        let frame = frames[0]
        // Opaque pixels go to libjpeg as they are (it ignores the fourth byte), saving a copy.
        let pixels = frame.pixels.containsTransparency
            ? frame.pixels.flattened(onto: options.backgroundColor ?? .white)
            : frame.pixels
        return try EncodeConstraints.fitFileSize(options: options) { quality in
            try Self.compress(pixels, quality: Self.libjpegQuality(quality), metadata: metadata)
        }
    }
}

extension JPEGCoder {
    /// libjpeg's quality (1...100) for a compression quality in 0...1.
    static func libjpegQuality(_ compressionQuality: Double) -> Int {
        guard compressionQuality.isFinite else { return 100 }
        return min(100, max(1, Int((compressionQuality * 100).rounded())))
    }

    /// Compresses opaque RGBA `pixels` (the alpha byte is ignored) at libjpeg `quality`,
    /// writing `metadata`: EXIF and XMP in APP1 markers (a block too large for one marker,
    /// 64 KiB, is left out), the profile in APP2 markers.
    static func compress(_ pixels: PixelBuffer, quality: Int, metadata: EncodedMetadata = EncodedMetadata()) throws -> Data {
        guard let width = UInt32(exactly: pixels.width), let height = UInt32(exactly: pixels.height) else {
            throw WebImageError.encodingFailed("image of \(pixels.size) is too large for JPEG")
        }
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: UInt = 0
        let icc = metadata.colorProfile.map { [UInt8]($0.data) } ?? []
        let exif = metadata.exif.map { [UInt8]($0) } ?? []
        let xmp = metadata.xmp.map { [UInt8]($0) } ?? []
        let status = pixels.bytes.withUnsafeBufferPointer { bytes in
            icc.withUnsafeBufferPointer { profile in
                exif.withUnsafeBufferPointer { exif in
                    xmp.withUnsafeBufferPointer { xmp in
                        // Blocks come from EncodedMetadata, at most 4 MiB (profile) or 1 MiB each.
                        var blocks = cjpeg_metadata(
                            icc_profile: profile.baseAddress, icc_length: UInt32(clamping: profile.count),
                            exif: exif.baseAddress, exif_length: UInt32(clamping: exif.count),
                            xmp: xmp.baseAddress, xmp_length: UInt32(clamping: xmp.count))
                        return cjpeg_encode_rgbx(
                            bytes.baseAddress, width, height, pixels.bytesPerRow, Int32(quality),
                            &blocks, &output, &outputSize, &message)
                    }
                }
            }
        }
        guard status == 0, let output else {
            let reason = String(cBuffer: message)
            throw WebImageError.encodingFailed(reason.isEmpty ? "libjpeg failed" : reason)
        }
        // libjpeg malloc'd the buffer; Data takes it over and frees it, without a copy.
        return Data(bytesNoCopy: output, count: Int(outputSize), deallocator: .free)
    }

    /// libjpeg-turbo, as its headers name it (it has no run-time version call).
    static var linkedLibrary: LinkedLibrary {
        LinkedLibrary(name: "libjpeg-turbo", version: String(cString: cjpeg_library_version()))
    }
}
