import CTIFF
import Foundation

/// 16-bit TIFFs (scanners, microscopes, photo exports), decoded with their samples rounded
/// to 8 bits, as PNG's are (`png_set_scale_16`): `round(v / 257)`. libtiff's RGBA reader,
/// which takes every other layout, keeps only each sample's high byte, which darkens every
/// value a little and puts a 16-bit grey of 393 (of 65,535) at 1 instead of 2.
///
/// Read here: unsigned 16-bit samples, grey (`MinIsBlack`, with or without alpha) or RGB
/// (with or without alpha), in strips or tiles, interleaved or one plane per sample
/// (`PlanarConfiguration` 1 or 2), any compression libtiff decodes. `MinIsWhite`, signed
/// or float samples and the rest keep going through libtiff's RGBA reader. Associated
/// (premultiplied) alpha is undone at 16 bits, before the rounding, so a faint pixel keeps
/// its colour.
extension TIFFCoder {
    /// What the 16-bit reader needs to know of a directory.
    struct SixteenBitLayout: Equatable {
        /// Samples per pixel: 1 to 4.
        var samples: Int
        /// 1 for grey, 3 for RGB.
        var colourSamples: Int
        /// The kind of the sample after the colour ones, when it is alpha.
        var alpha: Alpha?
        /// `isPlanar`: each sample in a plane of its own (`PlanarConfiguration` 2), so one
        /// block holds one sample of each pixel instead of all of them. `isTiled`: tiles
        /// rather than strips.
        var isPlanar: Bool, isTiled: Bool
        /// One block's pixels across and down: a tile's, or a strip's (the image's width by
        /// `RowsPerStrip`, at most the image's height).
        var block: ImageSize

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
                  TIFFCoder.field(tiff, UInt32(TIFFTAG_PHOTOMETRIC), &photometric)
            else { return nil }
            _ = TIFFCoder.field(tiff, UInt32(TIFFTAG_SAMPLESPERPIXEL), &samples)
            _ = TIFFCoder.field(tiff, UInt32(TIFFTAG_PLANARCONFIG), &planar)
            _ = TIFFCoder.field(tiff, UInt32(TIFFTAG_SAMPLEFORMAT), &format)
            guard format == UInt16(SAMPLEFORMAT_UINT) else { return nil }
            switch (Int32(photometric), samples) {
            case (PHOTOMETRIC_MINISBLACK, 1...2): colourSamples = 1
            case (PHOTOMETRIC_RGB, 3...4): colourSamples = 3
            default: return nil
            }
            self.samples = Int(samples)
            isPlanar = planar == UInt16(PLANARCONFIG_SEPARATE) && samples > 1
            isTiled = TIFFIsTiled(tiff) != 0
            var width: UInt32 = 0, height: UInt32 = 0
            _ = TIFFCoder.field(tiff, UInt32(TIFFTAG_IMAGEWIDTH), &width)
            _ = TIFFCoder.field(tiff, UInt32(TIFFTAG_IMAGELENGTH), &height)
            if isTiled {
                var tileWidth: UInt32 = 0, tileHeight: UInt32 = 0
                guard TIFFCoder.field(tiff, UInt32(TIFFTAG_TILEWIDTH), &tileWidth),
                      TIFFCoder.field(tiff, UInt32(TIFFTAG_TILELENGTH), &tileHeight),
                      tileWidth > 0, tileHeight > 0
                else { return nil }
                block = ImageSize(width: Int(tileWidth), height: Int(tileHeight))
            } else {
                // libtiff's default for a missing tag is "the whole image in one strip".
                var rowsPerStrip = UInt32.max
                _ = TIFFCoder.field(tiff, UInt32(TIFFTAG_ROWSPERSTRIP), &rowsPerStrip)
                block = ImageSize(width: Int(width), height: Int(max(1, min(rowsPerStrip, height))))
            }
            // The first extra sample is alpha when it says so; an unspecified one is not
            // (libtiff's RGBA reader ignores it too).
            let extra = self.samples > colourSamples ? TIFFCoder.extraSamples(tiff)?.first.map(Int32.init) : nil
            switch extra {
            case EXTRASAMPLE_ASSOCALPHA?: alpha = .associated
            case EXTRASAMPLE_UNASSALPHA?: alpha = .unassociated
            default: alpha = nil
            }
        }

        /// Samples of one pixel held in one block: all of them, or one when planar.
        var samplesPerBlockPixel: Int { isPlanar ? 1 : samples }
    }

    /// The image's rows in stored order as straight 8-bit RGBA. Read one band at a time (a
    /// strip's rows, or a row of tiles), each block decoded by libtiff and its samples
    /// placed into the band interleaved, so memory beyond the output is one band and one
    /// block. libtiff hands the samples over in the machine's byte order, whatever the
    /// file's.
    static func readSixteenBit(
        _ tiff: OpaquePointer,
        layout: SixteenBitLayout,
        width: Int,
        height: Int,
        stream: TIFFMemoryStream
    ) throws -> PixelBuffer {
        let blockSamples = layout.block.width * layout.block.height * layout.samplesPerBlockPixel
        let blockBytes = layout.isTiled ? TIFFTileSize64(tiff) : TIFFStripSize64(tiff)
        guard blockBytes == UInt64(blockSamples * 2) else {
            throw WebImageError.badImageData("TIFF block size does not match its 16-bit layout")
        }
        // The block's size was checked against the image's before either reader ran
        // (`TIFFCoder.decode`).
        let bandHeight = min(layout.block.height, height)
        var block = [UInt16](repeating: 0, count: blockSamples)
        var band = [UInt16](repeating: 0, count: width * bandHeight * layout.samples)
        return try PixelBuffer(uninitializedWidth: width, height: height) { buffer in
            for top in stride(from: 0, to: height, by: bandHeight) {
                let rows = min(bandHeight, height - top)
                for plane in 0..<(layout.isPlanar ? layout.samples : 1) {
                    for left in stride(from: 0, to: width, by: layout.block.width) {
                        try readBlock(tiff, layout: layout, left: left, top: top, plane: plane, rows: rows, into: &block, stream: stream)
                        place(block, layout: layout, left: left, plane: plane, rows: rows, width: width, into: &band)
                    }
                }
                band.withUnsafeBufferPointer { samples in
                    for row in 0..<rows {
                        let y = top + row
                        let source = UnsafeBufferPointer(rebasing: samples[(row * width * layout.samples)..<((row + 1) * width * layout.samples)])
                        let out = UnsafeMutableBufferPointer(rebasing: buffer[(y * width * 4)..<((y + 1) * width * 4)])
                        Self.convert(source, layout: layout, into: out)
                    }
                }
            }
        }
    }

    /// Decodes the strip or tile holding the pixel at (`left`, `top`) of sample plane
    /// `plane` into `block`. A strip at the image's foot holds only `rows` rows; anything
    /// shorter than that is damaged data, never uninitialised pixels.
    private static func readBlock(
        _ tiff: OpaquePointer, layout: SixteenBitLayout, left: Int, top: Int, plane: Int, rows: Int,
        into block: inout [UInt16], stream: TIFFMemoryStream
    ) throws {
        let needed = (layout.isTiled ? layout.block.height : rows) * layout.block.width * layout.samplesPerBlockPixel * 2
        let read = block.withUnsafeMutableBytes { bytes -> Int64 in
            if layout.isTiled {
                let tile = TIFFComputeTile(tiff, UInt32(left), UInt32(top), 0, UInt16(plane))
                return Int64(TIFFReadEncodedTile(tiff, tile, bytes.baseAddress, tmsize_t(bytes.count)))
            }
            let strip = TIFFComputeStrip(tiff, UInt32(top), UInt16(plane))
            return Int64(TIFFReadEncodedStrip(tiff, strip, bytes.baseAddress, tmsize_t(bytes.count)))
        }
        guard read >= Int64(needed) else {
            throw WebImageError.badImageData("TIFF pixel data unreadable: \(stream.firstError ?? "libtiff failed")")
        }
    }

    /// Copies a block's samples to their places in the interleaved band: whole runs of
    /// pixels when the block is interleaved too, one sample at a time when it is a plane.
    /// A tile's columns past the image's right edge are padding and left out.
    private static func place(
        _ block: [UInt16], layout: SixteenBitLayout, left: Int, plane: Int, rows: Int, width: Int,
        into band: inout [UInt16]
    ) {
        let columns = min(layout.block.width, width - left), samples = layout.samples
        block.withUnsafeBufferPointer { source in
            band.withUnsafeMutableBufferPointer { target in
                for row in 0..<rows {
                    let from = row * layout.block.width * layout.samplesPerBlockPixel
                    let to = (row * width + left) * samples
                    if layout.isPlanar {
                        for x in 0..<columns { target[to + x * samples + plane] = source[from + x] }
                    } else {
                        let count = columns * samples
                        _ = UnsafeMutableBufferPointer(rebasing: target[to..<(to + count)])
                            .update(fromContentsOf: UnsafeBufferPointer(rebasing: source[from..<(from + count)]))
                    }
                }
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
