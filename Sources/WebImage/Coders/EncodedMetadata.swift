import Foundation

/// What one encode writes besides the pixels, worked out once from the image and
/// ``ImageCoderOptions/MetadataPolicy``, so that every encoder applies the policy the same
/// way and differs only in where its format puts each block.
///
/// ```swift
/// let (frames, metadata) = EncodedMetadata.prepare(EncodeConstraints.prepare(image, options: options),
///                                                  of: image, options: options)
/// ```
struct EncodedMetadata: Equatable {
    /// The profile to embed, `nil` when there is none to write.
    var colorProfile: ColorProfile?
    /// The TIFF-structured EXIF block to write.
    var exif: Data?
    /// The XMP packet to write.
    var xmp: Data?

    /// Whether there is nothing to write.
    var isEmpty: Bool { colorProfile == nil && exif == nil && xmp == nil }

    /// The frames to encode and what to write with them. Pixels in a colour profile that
    /// will not be written (the policy strips it, or `formatHoldsMetadata` is `false`) are
    /// converted to sRGB first, so they still show their colours without it: after
    /// ``EncodeConstraints/prepare(_:options:)``, which may have scaled them down, so only
    /// the pixels written are converted. A format that holds no metadata writes none.
    static func prepare(
        _ frames: [ImageFrame], of image: Image, options: ImageCoderOptions, formatHoldsMetadata: Bool = true
    ) -> (frames: [ImageFrame], metadata: EncodedMetadata) {
        let policy = formatHoldsMetadata ? options.resolvedMetadataPolicy(for: image) : .strip
        var frames = frames
        var metadata = EncodedMetadata()
        if let profile = image.colorProfile {
            if policy == .strip {
                // The default options convert: keepsColorProfile is off.
                _ = ColorConversion.apply(profile, to: &frames, options: ImageCoderOptions())
            } else {
                metadata.colorProfile = profile
            }
        }
        if policy == .all {
            // Without their thumbnails, which show the source as it was (EXIFThumbnail,
            // XMPThumbnail).
            metadata.exif = image.metadata.exif.flatMap(EXIFThumbnail.removed(from:))
            metadata.xmp = image.metadata.xmp.map(XMPThumbnail.removed(from:))
        } else if options.keepsCopyright {
            metadata.exif = image.metadata.copyrightOnly.exif
        }
        return (frames, metadata)
    }
}
