import Foundation

extension ImageMetadata {
    /// EXIF's Artist (0x013B) and Copyright (0x8298) tags, in the ascending order TIFF
    /// keeps its entries in.
    private static let copyrightTags = [0x013B, 0x8298]

    /// Who made the image and who owns it, and nothing else: EXIF's Artist and Copyright
    /// (IFD0, as the camera or the editor wrote them), copied into a fresh EXIF block of
    /// their own; no XMP. What an image service keeps when it strips metadata but not the
    /// credit (imgproxy's `keep_copyright`, thumbor's `PRESERVE_EXIF_COPYRIGHT_INFO`):
    /// location, camera serial numbers and the rest stay out. Empty when the source has
    /// neither tag, or only damaged ones (each value must lie within the block and be
    /// ASCII, TIFF's type 2).
    ///
    /// ```swift
    /// var options = ImageCoderOptions()
    /// options.keepsCopyright = true          // with the default policies, writes this
    /// let credit = image.metadata.copyrightOnly
    /// ```
    public var copyrightOnly: ImageMetadata {
        guard let exif else { return ImageMetadata() }
        return exif.withUnsafeBytes { block in
            guard let littleEndian = EXIFOrientationReader.byteOrder(ofTIFF: block) else { return ImageMetadata() }
            let reader = EXIFOrientationReader.IntegerReader(bytes: block, littleEndian: littleEndian)
            guard let ifd0 = reader.u32(4) else { return ImageMetadata() }
            let entries = TIFFEXIFBlock.entries(at: ifd0, reader)
            let credit = Self.copyrightTags.compactMap { tag in
                entries.first { $0.tag == tag && $0.type == 2 && $0.count > 0 }.map { TIFFEXIFBlock.Field($0, from: block) }
            }
            guard !credit.isEmpty else { return ImageMetadata() }
            // ASCII values read the same in either byte order: the block is written
            // little-endian whatever the source's.
            return ImageMetadata(exif: Data(TIFFEXIFBlock.write(main: credit, exif: [], gps: [], littleEndian: true)))
        }
    }
}
