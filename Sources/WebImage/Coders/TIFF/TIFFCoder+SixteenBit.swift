import CTIFF
import Foundation

/// 16-bit TIFFs (scanners, microscopes, photo exports), decoded with their samples rounded
/// to 8 bits, as PNG's are (`png_set_scale_16`): `round(v / 257)`. libtiff's RGBA reader,
/// which takes every other layout, keeps only each sample's high byte, which darkens every
/// value a little and puts a 16-bit grey of 393 (of 65,535) at 1 instead of 2.
///
/// Read here: unsigned 16-bit samples, interleaved (`PlanarConfiguration` 1), in strips,
/// grey (`MinIsBlack`, with or without alpha) or RGB (with or without alpha). Tiled or
/// planar files, `MinIsWhite`, signed or float samples and the rest keep going through
/// libtiff's RGBA reader. Associated (premultiplied) alpha is undone at 16 bits, before
/// the rounding, so a faint pixel keeps its colour.
extension TIFFCoder {
    /// What the 16-bit reader needs to know of a directory.
    struct SixteenBitLayout: Equatable {
        /// Samples per pixel: 1 to 4.
        var samples: Int
        /// 1 for grey, 3 for RGB.
        var colourSamples: Int
        /// The kind of the sample after the colour ones, when it is alpha.
        var alpha: Alpha?

        enum Alpha: Equatable {
            case associated
            case unassociated
        }

        /// The layout of the current directory, or `nil` when it is not one this reader
        /// takes.
        init?(_ tiff: OpaquePointer) {
            var bits: UInt16 = 0, samples: UInt16 = 1, photometric: UInt16 = 0
            var planar = UInt16(PLANARCONFIG_CONTIG), format = UInt16(SAMPLEFORMAT_UINT)
            guard TIFFCoder.field(tiff, UInt32(TIFFTAG_BITSPERSAMPLE), &bits), bits == 16,
                  TIFFCoder.field(tiff, UInt32(TIFFTAG_PHOTOMETRIC), &photometric),
                  TIFFIsTiled(tiff) == 0
            else { return nil }
            _ = TIFFCoder.field(tiff, UInt32(TIFFTAG_SAMPLESPERPIXEL), &samples)
            _ = TIFFCoder.field(tiff, UInt32(TIFFTAG_PLANARCONFIG), &planar)
            _ = TIFFCoder.field(tiff, UInt32(TIFFTAG_SAMPLEFORMAT), &format)
            guard planar == UInt16(PLANARCONFIG_CONTIG), format == UInt16(SAMPLEFORMAT_UINT) else { return nil }
            switch (Int32(photometric), samples) {
            case (PHOTOMETRIC_MINISBLACK, 1...2): colourSamples = 1
            case (PHOTOMETRIC_RGB, 3...4): colourSamples = 3
            default: return nil
            }
            self.samples = Int(samples)
            // The first extra sample is alpha when it says so; an unspecified one is not
            // (libtiff's RGBA reader ignores it too).
            let extra = self.samples > colourSamples ? TIFFCoder.extraSamples(tiff)?.first.map(Int32.init) : nil
            switch extra {
            case EXTRASAMPLE_ASSOCALPHA?: alpha = .associated
            case EXTRASAMPLE_UNASSALPHA?: alpha = .unassociated
            default: alpha = nil
            }
        }
    }

    /// The image's rows in stored order as straight 8-bit RGBA. libtiff hands the samples
    /// over in the machine's byte order, whatever the file's.
    static func readSixteenBit(
        _ tiff: OpaquePointer,
        layout: SixteenBitLayout,
        width: Int,
        height: Int,
        stream: TIFFMemoryStream
    ) throws -> PixelBuffer {
        let rowSamples = width * layout.samples
        guard TIFFScanlineSize64(tiff) == Int64(rowSamples * 2) else {
            throw WebImageError.badImageData("TIFF row size does not match its 16-bit layout")
        }
        var row = [UInt16](repeating: 0, count: rowSamples)
        return try PixelBuffer(uninitializedWidth: width, height: height) { buffer in
            for y in 0..<height {
                let read = row.withUnsafeMutableBytes { TIFFReadScanline(tiff, $0.baseAddress, UInt32(y), 0) }
                guard read == 1 else {
                    throw WebImageError.badImageData("TIFF pixel data unreadable: \(stream.firstError ?? "libtiff failed")")
                }
                let out = UnsafeMutableBufferPointer(rebasing: buffer[(y * width * 4)..<((y + 1) * width * 4)])
                row.withUnsafeBufferPointer { Self.convert($0, layout: layout, into: out) }
            }
        }
    }

    /// One row of 16-bit samples to 8-bit straight RGBA.
    private static func convert(_ row: UnsafeBufferPointer<UInt16>, layout: SixteenBitLayout, into out: UnsafeMutableBufferPointer<UInt8>) {
        @inline(__always) func eight(_ value: Int) -> UInt8 { UInt8((value + 128) / 257) }
        let samples = layout.samples, grey = layout.colourSamples == 1
        for pixel in 0..<(row.count / samples) {
            let s = pixel * samples, d = pixel * 4
            var red = Int(row[s])
            var green = grey ? red : Int(row[s + 1])
            var blue = grey ? red : Int(row[s + 2])
            var alpha = 65_535
            if layout.alpha != nil {
                alpha = Int(row[s + layout.colourSamples])
                if layout.alpha == .associated {
                    // Premultiplied: back to straight colour at full precision; a colour
                    // above its alpha (malformed) is clamped.
                    if alpha == 0 {
                        (red, green, blue) = (0, 0, 0)
                    } else {
                        red = min(65_535, (red * 65_535 + alpha / 2) / alpha)
                        green = min(65_535, (green * 65_535 + alpha / 2) / alpha)
                        blue = min(65_535, (blue * 65_535 + alpha / 2) / alpha)
                    }
                }
            }
            out[d] = eight(red)
            out[d + 1] = eight(green)
            out[d + 2] = eight(blue)
            out[d + 3] = eight(alpha)
        }
    }
}
