/// Reads the orientation tag (0x0112) from an EXIF block.
///
/// JPEG (APP1), PNG (`eXIf`), WebP (`EXIF` chunk) and HEIF all carry the same TIFF-structured
/// EXIF payload, so the coders share this reader. It checks every offset against the bytes
/// present and returns `nil` rather than trapping on a malformed block.
///
/// ```swift
/// let orientation = EXIFOrientationReader.orientation(inTIFF: payload) ?? .up
/// ```
public enum EXIFOrientationReader {
    /// The orientation in a TIFF-structured block (starting `II*\0` or `MM\0*`), optionally
    /// preceded by JPEG's `Exif\0\0` prefix.
    public static func orientation<C: Collection>(inTIFF block: C) -> ImageOrientation? where C.Element == UInt8 {
        var bytes = [UInt8](block)
        if bytes.count >= 6, bytes[0] == 0x45, bytes[1] == 0x78, bytes[2] == 0x69, bytes[3] == 0x66, bytes[4] == 0, bytes[5] == 0 {
            bytes.removeFirst(6)
        }
        guard bytes.count >= 8 else { return nil }
        let little: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 {
                // SHORT value stored in the first two bytes of the value field.
                guard let value = u16(entry + 8) else { return nil }
                return ImageOrientation(exifValue: value)
            }
        }
        return nil
    }
}
