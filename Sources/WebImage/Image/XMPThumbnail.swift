import Foundation

/// Takes the thumbnails out of an XMP packet that is written again: the `xmp:Thumbnails`
/// property (`xap:` in older packets), a base64 JPEG of the picture that Photoshop, Bridge
/// and Lightroom write.
///
/// For the same reason as ``EXIFThumbnail``: it shows the source as it was (uncropped,
/// unblurred), and a kept packet would carry it into a result made to hide part of it.
/// The property is cut from its start tag to its end tag; a packet without one, or with
/// one that does not end, is left as it is.
///
/// ```swift
/// let kept = XMPThumbnail.removed(from: image.metadata.xmp)
/// ```
enum XMPThumbnail {
    /// The packet without any `xmp:Thumbnails` or `xap:Thumbnails` element.
    static func removed(from packet: Data) -> Data {
        var bytes = [UInt8](packet)
        var changed = false
        for prefix in ["xmp", "xap"] {
            let open = Array("<\(prefix):Thumbnails".utf8), close = Array("</\(prefix):Thumbnails>".utf8)
            // Each search goes on from the last cut, never from the start again: a packet
            // of padding and thousands of elements took minutes when every pass rescanned it.
            var kept: [UInt8] = []
            var cursor = 0
            while let start = bytes[cursor...].firstRange(of: open)?.lowerBound,
                  let end = bytes[start...].firstRange(of: close)?.upperBound {
                kept += bytes[cursor..<start]
                cursor = end
            }
            guard cursor > 0 else { continue }
            bytes = kept + bytes[cursor...]
            changed = true
        }
        return changed ? Data(bytes) : packet
    }
}
