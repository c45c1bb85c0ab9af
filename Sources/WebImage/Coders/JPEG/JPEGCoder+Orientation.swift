import CJPEG

extension JPEGCoder {
    /// The orientation a JPEG declares: EXIF's tag when present, else XMP's
    /// `tiff:Orientation` (some editors, and the corpus's TestJFIF.jpg, keep it only
    /// there), else ``ImageOrientation/up``. The same precedence as ImageIO and Pillow.
    static func orientation(_ decoder: OpaquePointer) -> ImageOrientation {
        if let exif = app1(decoder, signature: ImageMetadata.jpegEXIFPrefix),
           let orientation = EXIFOrientationReader.orientation(inTIFF: exif) {
            return orientation
        }
        if let xmp = app1(decoder, signature: ImageMetadata.jpegXMPPrefix),
           let orientation = xmpOrientation(xmp) {
            return orientation
        }
        return .up
    }

    /// The EXIF and XMP blocks of the file's APP1 markers, without their prefixes, for
    /// ``ImageCoderOptions/readsMetadata``; EXIF's orientation reset to 1 when the decode
    /// applies it.
    static func metadata(_ decoder: OpaquePointer, options: ImageCoderOptions) -> ImageMetadata {
        let exif = app1(decoder, signature: ImageMetadata.jpegEXIFPrefix)
        let xmp = app1(decoder, signature: ImageMetadata.jpegXMPPrefix)
        return ImageMetadata.read(
            exif: exif.map { UnsafeRawBufferPointer($0) },
            xmp: xmp.map { UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer($0)[ImageMetadata.jpegXMPPrefix.count...]) },
            resetOrientation: options.applyOrientation)
    }

    /// The value of `tiff:Orientation` in an XMP packet, written either as an attribute
    /// (`tiff:Orientation="6"`) or as an element (`<tiff:Orientation>6</tiff:Orientation>`).
    package static func xmpOrientation(_ xmp: UnsafeBufferPointer<UInt8>) -> ImageOrientation? {
        ImageMetadata.xmpOrientation(in: UnsafeRawBufferPointer(xmp))
    }

    /// The first APP1 payload starting with `signature`; valid while the decoder lives.
    private static func app1(_ decoder: OpaquePointer, signature: [UInt8]) -> UnsafeBufferPointer<UInt8>? {
        var bytes: UnsafePointer<UInt8>?
        let count = cjpeg_decoder_app1(decoder, signature, signature.count, &bytes)
        guard count > 0, let bytes else { return nil }
        return UnsafeBufferPointer(start: bytes, count: count)
    }
}
