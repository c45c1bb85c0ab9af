extension PixelBuffer {
    /// Converts premultiplied RGBA in place to the straight alpha every ``PixelBuffer``
    /// holds, for decoders whose library hands back premultiplied pixels (libtiff's RGBA
    /// reader, premultiplied HEIF). Rounds to nearest; fully transparent pixels keep RGB 0.
    mutating func unpremultiplyAlpha() {
        bytes.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i + 3 < p.count {
                let a = Int(p[i + 3])
                if a == 0 {
                    p[i] = 0; p[i + 1] = 0; p[i + 2] = 0
                } else if a < 255 {
                    p[i] = UInt8(min(255, (Int(p[i]) * 255 + a / 2) / a))
                    p[i + 1] = UInt8(min(255, (Int(p[i + 1]) * 255 + a / 2) / a))
                    p[i + 2] = UInt8(min(255, (Int(p[i + 2]) * 255 + a / 2) / a))
                }
                i += 4
            }
        }
    }
}
