import CPNG

/// libpng, wrapped: decodes one PNG stream held in memory to 8-bit RGBA.
///
/// Used for plain PNGs and, once per frame, for the small streams the APNG decoder builds.
/// Every transform that matters is set in the C shim (expand palette and low depths, tRNS
/// to alpha, 16-bit to its high byte, grey to RGB, no gamma correction). Stateless; safe
/// to call from any thread.
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
        return try PixelBuffer(uninitializedWidth: width, height: height) { storage in
            guard let pixels = storage.baseAddress,
                  cpng_decoder_read_rgba(decoder, pixels, width * 4, storage.count) == 0
            else { throw failure(decoder) }
        }
    }

    /// The error for a failed call on `reader` (one-shot or progressive), with libpng's message.
    static func failure(_ reader: OpaquePointer) -> WebImageError {
        let message = cpng_reader_error(reader).map { String(cString: $0) } ?? ""
        return .badImageData("PNG: " + (message.isEmpty ? "libpng failed" : message))
    }
}
