import Foundation

/// The source's EXIF and XMP blocks, kept as raw bytes so that an encoder can write them
/// again (``ImageCoderOptions/MetadataPolicy/all``).
///
/// Decoders fill it only when asked (``ImageCoderOptions/readsMetadata``), so a default
/// decode reads and allocates nothing for it. A block is taken only when it is well formed
/// enough to write again (EXIF must start with a TIFF header) and at most
/// ``maximumBlockSize`` bytes; anything else is dropped, never allocated without bound. When
/// the decoder turned the pixels upright (``ImageCoderOptions/applyOrientation``, the
/// default), the kept EXIF (and XMP's `tiff:Orientation`) says orientation 1, so that a
/// viewer does not turn them again.
/// The colour profile is not here: it is ``Image/colorProfile``, the profile the pixels are
/// in. A value: thread-safe.
///
/// ```swift
/// var options = ImageCoderOptions()
/// options.readsMetadata = true
/// let image = try CodersManager.shared.decode(data, options: options)
/// print(image.metadata.exif?.count ?? 0, image.metadata.xmp?.count ?? 0)
/// ```
public struct ImageMetadata: Sendable, Hashable {
    /// The EXIF block, TIFF-structured (starting `II*\0` or `MM\0*`), without JPEG's
    /// `Exif\0\0` prefix: the form PNG's `eXIf` and WebP's `EXIF` chunks hold.
    public var exif: Data?
    /// The XMP packet (UTF-8 RDF/XML), without JPEG's namespace prefix.
    public var xmp: Data?

    /// The largest block kept: 1 MiB. JPEG's segments hold 64 KiB at most; a larger block
    /// in another container is almost always a thumbnail-laden or hostile file, and copying
    /// it into every re-encoded image is not worth it.
    public static let maximumBlockSize = 1 << 20

    /// Metadata with the given blocks, as they are (no checks: for images made in memory).
    public init(exif: Data? = nil, xmp: Data? = nil) {
        self.exif = exif
        self.xmp = xmp
    }

    /// Whether there is no block at all.
    public var isEmpty: Bool { exif == nil && xmp == nil }

    /// The blocks read from a file, checked: `exif` with or without JPEG's `Exif\0\0`
    /// prefix (HEIF's offset is the caller's to skip), dropped unless it starts with a TIFF
    /// header; either block dropped when empty or over ``maximumBlockSize``. With
    /// `resetOrientation` (the decoder turned the pixels upright) the EXIF orientation tag
    /// and XMP's `tiff:Orientation`, when present, are rewritten to 1.
    /// - Parameters:
    ///   - exifOrientationOfAnyIntegerType: reset an EXIF orientation of any integer type,
    ///     not only those a JPEG decoder reads (TIFF: libtiff reads them all).
    ///   - resetsXMPOrientation: whether XMP's orientation is reset too; default
    ///     `resetOrientation` (a JPEG decoder applies XMP's orientation when EXIF has none; a
    ///     TIFF decoder never does, so it resets XMP's only when it turned the pixels).
    package static func read(
        exif: UnsafeRawBufferPointer?,
        xmp: UnsafeRawBufferPointer?,
        resetOrientation: Bool,
        exifOrientationOfAnyIntegerType: Bool = false,
        resetsXMPOrientation: Bool? = nil
    ) -> ImageMetadata {
        var metadata = ImageMetadata()
        if let exif, exif.count <= maximumBlockSize + 6 {
            var bytes = [UInt8](exif)
            if bytes.starts(with: Self.jpegEXIFPrefix) { bytes.removeFirst(Self.jpegEXIFPrefix.count) }
            if bytes.count <= maximumBlockSize, EXIFOrientationReader.byteOrder(ofTIFF: bytes) != nil {
                if resetOrientation {
                    EXIFOrientationReader.resetOrientation(inTIFF: &bytes, anyIntegerType: exifOrientationOfAnyIntegerType)
                }
                metadata.exif = Data(bytes)
            }
        }
        if let xmp, !xmp.isEmpty, xmp.count <= maximumBlockSize {
            var bytes = [UInt8](xmp)
            if resetsXMPOrientation ?? resetOrientation {
                // XMP's copy of the orientation says the same as EXIF's, or stands alone
                // (a JPEG decoder applies it then): either way it is 1 now. One digit for
                // another, so the packet keeps its length and padding.
                for digit in bytes.withUnsafeBytes(xmpOrientationDigits(in:)) { bytes[digit] = UInt8(ascii: "1") }
            }
            metadata.xmp = Data(bytes)
        }
        return metadata
    }

    /// These blocks saying "upright": every IFD0 orientation of the EXIF block (a SHORT or
    /// a LONG of any byte order) and every XMP `tiff:Orientation` rewritten to 1, in place.
    /// For pixels turned after the decode, as the image server's `rotate` turns a source
    /// decoded without `auto_rotate`: a kept block that still named the source's
    /// orientation made viewers turn the result once more. (imgproxy removes the tag
    /// whenever it rotates or flips.)
    package func orientationReset() -> ImageMetadata {
        var metadata = self
        if let exif {
            var bytes = [UInt8](exif)
            let start = bytes.starts(with: Self.jpegEXIFPrefix) ? Self.jpegEXIFPrefix.count : 0
            var tiff = Array(bytes[start...])
            EXIFOrientationReader.resetOrientation(inTIFF: &tiff, anyIntegerType: true)
            bytes.replaceSubrange(start..., with: tiff)
            metadata.exif = Data(bytes)
        }
        if let xmp {
            var bytes = [UInt8](xmp)
            for digit in bytes.withUnsafeBytes(Self.xmpOrientationDigits(in:)) { bytes[digit] = UInt8(ascii: "1") }
            metadata.xmp = Data(bytes)
        }
        return metadata
    }

    /// The value of the first `tiff:Orientation` in an XMP packet, written either as an
    /// attribute (`tiff:Orientation="6"`) or as an element
    /// (`<tiff:Orientation>6</tiff:Orientation>`): the orientation of a file whose EXIF
    /// has none, as Pillow's `exif_transpose` reads it.
    static func xmpOrientation(in xmp: UnsafeRawBufferPointer) -> ImageOrientation? {
        guard let digit = xmpOrientationDigits(in: xmp).first else { return nil }
        return ImageOrientation(exifValue: Int(xmp[digit] - UInt8(ascii: "0")))
    }

    /// Where the value of each `tiff:Orientation` in an XMP packet lies (one digit, 1–8),
    /// written either as an attribute (`tiff:Orientation="6"`) or as an element
    /// (`<tiff:Orientation>6</tiff:Orientation>`).
    static func xmpOrientationDigits(in xmp: UnsafeRawBufferPointer) -> [Int] {
        let name = Array("tiff:Orientation".utf8)
        var digits: [Int] = []
        var start = 0
        while start + name.count < xmp.count {
            defer { start += 1 }
            guard xmp[start] == name[0], name.indices.allSatisfy({ xmp[start + $0] == name[$0] }) else { continue }
            var at = start + name.count
            switch xmp[at] {
            case UInt8(ascii: ">"):
                at += 1
            case UInt8(ascii: "="):
                at += 1
                guard at < xmp.count, xmp[at] == UInt8(ascii: "\"") || xmp[at] == UInt8(ascii: "'") else { continue }
                at += 1
            default:
                continue
            }
            guard at < xmp.count, (UInt8(ascii: "1")...UInt8(ascii: "8")).contains(xmp[at]) else { continue }
            digits.append(at)
        }
        return digits
    }

    /// The prefix JPEG's APP1 segment puts before the TIFF header.
    static let jpegEXIFPrefix: [UInt8] = Array("Exif".utf8) + [0, 0]
    /// The namespace that starts JPEG's XMP APP1 segment.
    static let jpegXMPPrefix: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
}
