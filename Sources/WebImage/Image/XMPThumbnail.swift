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
            while let start = bytes.firstRange(of: open)?.lowerBound,
                  let end = bytes[start...].firstRange(of: close)?.upperBound {
                bytes.removeSubrange(start..<end)
                changed = true
            }
        }
        return changed ? Data(bytes) : packet
    }
}
