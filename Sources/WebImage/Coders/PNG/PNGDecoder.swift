import CPNG

/// libpng, wrapped: decodes one PNG stream held in memory to 8-bit RGBA.
///
/// Used for plain PNGs and, once per frame, for the small streams the APNG decoder builds.
/// Every transform that matters is set in the C shim (expand palette and low depths, tRNS
/// to alpha, 16-bit scaled to 8 rounded, grey to RGB, no gamma correction: the colour
/// description is returned for ``ColorConversion``). Stateless; safe to call from any thread.
enum PNGDecoder {
    /// The fields of IHDR, read by us before libpng so the size is checked first.
    struct Header: Equatable {
        var width: Int
        var height: Int
        var bitDepth: UInt8
        var colorType: UInt8
        var interlace: UInt8

        /// The 13 IHDR bytes for this header.
        var bytes: [UInt8] {
            var out: [UInt8] = []
            PNGChunks.appendUInt32(UInt32(truncatingIfNeeded: width), to: &out)
            PNGChunks.appendUInt32(UInt32(truncatingIfNeeded: height), to: &out)
            out += [bitDepth, colorType, 0, 0, interlace]
            return out
        }

        /// Colour types 4 (grey + alpha) and 6 (RGBA) carry an alpha channel.
        var hasAlphaChannel: Bool { colorType & 4 != 0 }
    }

    /// Reads IHDR, which must be the first chunk, checking its size and fields.
    static func header(of layout: PNGChunks.Layout, in bytes: UnsafeRawBufferPointer) throws -> Header {
        guard let first = layout.chunks.first, first.type == PNGChunks.IHDR, first.payload.count == 13 else {
            throw WebImageError.badImageData("PNG does not start with a valid IHDR chunk")
        }
        let p = first.payload.lowerBound
        let width = PNGChunks.readUInt32(bytes, at: p), height = PNGChunks.readUInt32(bytes, at: p + 4)
        guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
            throw WebImageError.badImageData("PNG declares an invalid size \(width)x\(height)")
        }
        return Header(
            width: Int(width),
            height: Int(height),
            bitDepth: bytes[p + 8],
            colorType: bytes[p + 9],
            interlace: bytes[p + 12]
        )
    }

    /// Decodes a complete PNG stream to RGBA. The caller has already checked the size
    /// declared in IHDR against the pixel limit; libpng is told the same limit per side.
    static func decode(_ bytes: UnsafeRawBufferPointer, options: ImageCoderOptions) throws -> PixelBuffer {
        try decodeWithColor(bytes, options: options).pixels
    }

    /// ``decode(_:options:)``, also returning the stream's colour profile (see
    /// ``colorProfile(_:)``), read in the same pass.
    static func decodeWithColor(
        _ bytes: UnsafeRawBufferPointer, options: ImageCoderOptions
    ) throws -> (pixels: PixelBuffer, profile: ColorProfile?) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw WebImageError.badImageData("empty PNG data")
        }
        let sideLimit = UInt32(clamping: min(options.pixelLimit, 0x7FFF_FFFF))
        guard let decoder = cpng_decoder_create(base, bytes.count, sideLimit, sideLimit) else {
            throw WebImageError.badImageData("libpng could not allocate a decoder")
        }
        defer { cpng_reader_destroy(decoder) }
        var header = cpng_header()
        guard cpng_decoder_read_header(decoder, &header) == 0 else {
            throw failure(decoder)
        }
        let width = Int(header.width), height = Int(header.height)
        try DecodeGeometry.checkPixelLimit(width: width, height: height, options: options)
        let profile = colorProfile(decoder)
        let pixels = try PixelBuffer(uninitializedWidth: width, height: height) { storage in
            guard let pixels = storage.baseAddress,
                  cpng_decoder_read_rgba(decoder, pixels, width * 4, storage.count) == 0
            else { throw failure(decoder) }
        }
        return (pixels, profile)
    }

    /// The colour profile the chunks before the image data describe, reading nothing
    /// else: what an APNG's frames are in.
    static func colorProfile(_ bytes: UnsafeRawBufferPointer) -> ColorProfile? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let decoder = cpng_decoder_create(base, bytes.count, 0x7FFF_FFFF, 0x7FFF_FFFF)
        else { return nil }
        defer { cpng_reader_destroy(decoder) }
        var header = cpng_header()
        guard cpng_decoder_read_header(decoder, &header) == 0 else { return nil }
        return colorProfile(decoder)
    }

    /// What iCCP, sRGB, gAMA and cHRM say, in PNG's order of precedence: an ICC profile;
    /// else sRGB (`nil`: nothing to convert); else a profile built from the gamma and the
    /// chromaticities, each defaulting to sRGB's when only the other is given. `decoder`
    /// is a one-shot or progressive reader that has read the header.
    static func colorProfile(_ decoder: OpaquePointer) -> ColorProfile? {
        var color = cpng_color()
        cpng_decoder_color(decoder, &color)
        if let icc = color.icc, color.icc_length > 0 {
            return ColorConversion.profile(iccBytes: UnsafeRawBufferPointer(start: icc, count: Int(color.icc_length)))
        }
        guard color.srgb == 0, color.gamma > 0 || color.has_chromaticities != 0 else { return nil }
        typealias Point = ColorProfile.Chromaticity
        let sRGBPrimaries = [Point.d65, Point(x: 0.64, y: 0.33), Point(x: 0.30, y: 0.60), Point(x: 0.15, y: 0.06)]
        let primaries = color.has_chromaticities == 0 ? sRGBPrimaries : [
            Point(x: color.white_x, y: color.white_y), Point(x: color.red_x, y: color.red_y),
            Point(x: color.green_x, y: color.green_y), Point(x: color.blue_x, y: color.blue_y),
        ]
        let isSRGBGamut = zip(primaries, sRGBPrimaries).allSatisfy { abs($0.x - $1.x) < 0.001 && abs($0.y - $1.y) < 0.001 }
        // gAMA 0.45455 with sRGB's primaries is how encoders (libpng's own sRGB support,
        // Photoshop, GIMP) label sRGB; libpng and browsers take it as sRGB too.
        if isSRGBGamut, color.gamma == 0 || abs(color.gamma - 1 / 2.2) < 0.0005 { return nil }
        // gAMA stores the encoding exponent (1/2.2 as 0.45455); light = value^(1/gamma).
        let transfer: ColorProfile.TransferCurve = color.gamma > 0 ? .gamma(1 / color.gamma) : .sRGB
        return try? ColorProfile.rgb(
            white: primaries[0], red: primaries[1], green: primaries[2], blue: primaries[3], transfer: transfer)
    }

    /// The error for a failed call on `reader` (one-shot or progressive), with libpng's message.
    static func failure(_ reader: OpaquePointer) -> WebImageError {
        let message = cpng_reader_error(reader).map { String(cString: $0) } ?? ""
        return .badImageData("PNG: " + (message.isEmpty ? "libpng failed" : message))
    }
}
