extension ImageCoderOptions {
    /// What an encoder writes besides the pixels: SDWebImage leaves it to ImageIO; imgproxy
    /// calls it `strip_metadata` and `strip_color_profile`.
    ///
    /// Metadata is a privacy and size question (EXIF holds GPS positions and camera serial
    /// numbers, and can be larger than a thumbnail's pixels), the colour profile a
    /// correctness one: pixels kept in Display P3 (``ImageCoderOptions/keepsColorProfile``)
    /// look washed out without their profile. So a policy that leaves the profile out first
    /// converts such pixels to sRGB, the colour space assumed when there is none; pixels
    /// already in sRGB (every default decode) carry no profile to write. An encoder writes
    /// only what its format can hold (see each case); GIF and BMP hold none of it.
    ///
    /// ```swift
    /// var options = ImageCoderOptions()
    /// options.metadataPolicy = .all
    /// let jpeg = try CodersManager.shared.encode(image, as: .jpeg, options: options)
    /// ```
    public enum MetadataPolicy: String, Sendable, Hashable, CaseIterable {
        /// Write nothing: no EXIF, no XMP, no colour profile (pixels in another profile are
        /// converted to sRGB first). The smallest file, and nothing private leaks: the
        /// default for thumbnails and transformed images, and imgproxy's default.
        case strip
        /// Write the colour profile (``Image/colorProfile``) when the pixels have one, and
        /// nothing else: the default for a plain re-encode, since the profile changes what
        /// the pixels mean and EXIF and XMP are private. JPEG (`APP2`), PNG (`iCCP`), WebP
        /// (`ICCP`), AVIF and HEIC (`colr`) and JPEG XL (in its codestream, the pixels then
        /// coded in that profile's space rather than XYB) hold a profile.
        case colorProfileOnly
        /// Write the profile and the source's EXIF and XMP (``Image/metadata``, read when
        /// decoding with ``ImageCoderOptions/readsMetadata``), EXIF's orientation already
        /// reset to 1 when the decoder turned the pixels upright. JPEG (`APP1`), PNG
        /// (`eXIf`, `iTXt` `XML:com.adobe.xmp`), WebP (`EXIF`, `XMP `), AVIF and HEIC
        /// (`Exif` and `mime` items) and JPEG XL (`Exif` and `xml ` boxes) hold both.
        case all
    }
}
