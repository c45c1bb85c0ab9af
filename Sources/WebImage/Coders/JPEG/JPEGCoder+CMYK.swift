extension JPEGCoder {
    /// Converts CMYK pixels (as libjpeg outputs them, four bytes each) to opaque RGBA in place.
    ///
    /// Photoshop writes CMYK JPEGs inverted (0 = full ink) and marks them with an Adobe
    /// APP14 marker, so, like libvips, the values are inverted when that marker is present.
    /// The conversion itself is Pillow's naive one — `R = (255 − C)(255 − K) / 255`, rounded
    /// the same way — so results match Pillow exactly on Adobe files. (Pillow assumes
    /// inversion even without the marker; there the two differ.) No ICC profile is applied.
    static func convertCMYKToRGBA(_ pixels: UnsafeMutableBufferPointer<UInt8>, inverted: Bool) {
        // After optional inversion `value` is ink amount; Pillow's formula is
        // nk − nk·C/255 with nk = 255 − K.
        let flip: UInt32 = inverted ? 255 : 0
        var i = 0
        while i + 3 < pixels.count {
            let black = UInt32(pixels[i + 3]) ^ flip           // K as ink (0...255)
            let paper = 255 - black
            for channel in 0..<3 {
                let ink = UInt32(pixels[i + channel]) ^ flip
                pixels[i + channel] = UInt8(truncatingIfNeeded: paper - divideBy255(ink * paper))
            }
            pixels[i + 3] = 255
            i += 4
        }
    }

    /// `value / 255` rounded to nearest, exact for products of two bytes (Pillow's MULDIV255).
    @inline(__always)
    private static func divideBy255(_ value: UInt32) -> UInt32 {
        let t = value + 128
        return ((t >> 8) + t) >> 8
    }
}
