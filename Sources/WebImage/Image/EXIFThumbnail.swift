import Foundation

/// Takes the thumbnail out of an EXIF block that is written again: IFD1, the small JPEG a
/// camera or editor stores beside the picture.
///
/// An encoder that keeps the metadata (``ImageCoderOptions/MetadataPolicy/all``) writes
/// the block it was given, and its thumbnail shows the source as it was: uncropped,
/// unblurred, in its stored orientation after the decoder reset IFD0's to upright. File
/// browsers show that thumbnail in place of the picture; for a blurred or cropped result
/// it is the part someone meant to hide. The thumbnail goes, whatever was done to the
/// pixels: a re-encode is a new picture.
///
/// ```swift
/// let kept = EXIFThumbnail.removed(from: image.metadata.exif)
/// ```
enum EXIFThumbnail {
    /// `block` (TIFF-structured, optionally after JPEG's `Exif\0\0`) without its IFD1:
    /// IFD0's link to it is cleared, and the directory and the thumbnail's bytes (by
    /// `JPEGInterchangeFormat` and its length) are zeroed, so neither a reader nor a scan
    /// for an embedded JPEG finds them. Unchanged when the block has no IFD1 or is not TIFF;
    /// every offset is checked against the bytes present.
    static func removed(from block: Data) -> Data {
        var bytes = [UInt8](block)
        let start = bytes.starts(with: ImageMetadata.jpegEXIFPrefix) ? ImageMetadata.jpegEXIFPrefix.count : 0
        var tiff = Array(bytes[start...])
        guard removeIFD1(inTIFF: &tiff) else { return block }
        bytes.replaceSubrange(start..., with: tiff)
        return Data(bytes)
    }

    /// Clears IFD1 in the TIFF-structured `bytes`; `false` when there is none.
    private static func removeIFD1(inTIFF bytes: inout [UInt8]) -> Bool {
        guard let little = EXIFOrientationReader.byteOrder(ofTIFF: bytes) else { return false }
        let reader = EXIFOrientationReader.IntegerReader(bytes: bytes, littleEndian: little)
        guard let ifd0 = reader.u32(4), let count0 = reader.u16(ifd0) else { return false }
        let link = ifd0 + 2 + count0 * 12
        guard let ifd1 = reader.u32(link), ifd1 > 0, let count1 = reader.u16(ifd1) else { return false }
        var thumbnailOffset: Int?, thumbnailLength: Int?
        for index in 0..<count1 {
            let entry = ifd1 + 2 + index * 12
            guard let tag = reader.u16(entry) else { break }
            if tag == 0x0201 { thumbnailOffset = reader.u32(entry + 8) }
            if tag == 0x0202 { thumbnailLength = reader.u32(entry + 8) }
        }
        func zero(_ range: Range<Int>) {
            let clamped = range.clamped(to: 0..<bytes.count)
            for index in clamped { bytes[index] = 0 }
        }
        if let offset = thumbnailOffset, let length = thumbnailLength, offset <= bytes.count {
            zero(offset..<offset + min(length, bytes.count - offset))
        }
        // The directory: its count, its entries and its own link.
        zero(ifd1..<ifd1 + min(2 + count1 * 12 + 4, bytes.count - min(ifd1, bytes.count)))
        zero(link..<link + 4)
        return true
    }
}
