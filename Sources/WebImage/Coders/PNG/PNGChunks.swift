import CPNG

/// The chunk layer of PNG and APNG: finds chunks in untrusted bytes and writes new ones.
///
/// libpng never sees APNG's frames (Debian's libpng has no APNG patch), so the coder walks
/// the chunk list itself: every length is checked against the bytes present before use,
/// and a chunk that runs past the end stops the walk instead of being read.
enum PNGChunks {
    /// The 8-byte PNG signature.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// One chunk found in a stream: its four-letter type and where its payload lies.
    struct Chunk {
        /// The type as a big-endian integer (`"IDAT"` is 0x4944_4154), cheap to compare.
        let type: UInt32
        /// Byte range of the payload within the scanned buffer.
        let payload: Range<Int>
        /// Byte offset of the 4-byte CRC that follows the payload.
        let crcOffset: Int
    }

    /// What a walk over the stream found.
    struct Layout {
        /// The chunks in file order, up to IEND or up to the last complete chunk.
        var chunks: [Chunk]
        /// Whether the walk stopped at a chunk that runs past the end of the data.
        var isTruncated: Bool
    }

    /// Four-letter codes as integers.
    static func code(_ name: StaticString) -> UInt32 {
        precondition(name.utf8CodeUnitCount == 4, "chunk types have four letters")
        let p = name.utf8Start
        return UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
    }

    static let IHDR = code("IHDR"), PLTE = code("PLTE"), IDAT = code("IDAT"), IEND = code("IEND")
    static let tRNS = code("tRNS"), eXIf = code("eXIf"), iCCP = code("iCCP"), iTXt = code("iTXt")
    static let acTL = code("acTL"), fcTL = code("fcTL"), fdAT = code("fdAT")

    /// The `iTXt` keyword under which XMP is stored (Adobe's XMP specification, part 3).
    static let xmpKeyword = "XML:com.adobe.xmp"

    /// Calls `body` with the XMP packet of the first `iTXt` chunk keyed
    /// `XML:com.adobe.xmp`, or `nil` when there is none, and returns what it returns.
    ///
    /// A compressed packet (flag 1, zlib) is inflated, as Pillow and exiftool read it, into
    /// at most ``ImageMetadata/maximumBlockSize`` bytes: a packet that inflates past that
    /// (or a damaged stream) counts as none, as an uncompressed one that large is dropped,
    /// and the work is bounded by the limit, never by what the stream would make. It used to
    /// be skipped, so a compressed packet's orientation and contents were lost.
    static func withXMPPacket<T>(in layout: Layout, bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) -> T) -> T {
        let keyword = Array(xmpKeyword.utf8) + [0]
        for chunk in layout.chunks where chunk.type == iTXt {
            let payload = UnsafeRawBufferPointer(rebasing: bytes[chunk.payload])
            guard payload.starts(with: keyword), payload.count >= keyword.count + 2,
                  payload[keyword.count + 1] == 0 else { continue }
            let isCompressed = payload[keyword.count] == 1
            // Skip the compression flag and method, then the language tag and the
            // translated keyword, each ending at a NUL.
            var at = keyword.count + 2
            for _ in 0..<2 {
                guard let end = payload[at...].firstIndex(of: 0) else { return body(nil) }
                at = end + 1
            }
            let text = UnsafeRawBufferPointer(rebasing: payload[at...])
            guard isCompressed else { return body(text) }
            guard let inflated = inflated(text, limit: ImageMetadata.maximumBlockSize) else { return body(nil) }
            return inflated.withUnsafeBytes(body)
        }
        return body(nil)
    }

    /// The zlib stream `compressed` inflated, or `nil` when it is damaged or makes more than
    /// `limit` bytes (one byte of room past the limit tells the two apart).
    private static func inflated(_ compressed: UnsafeRawBufferPointer, limit: Int) -> [UInt8]? {
        guard let input = compressed.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var output = [UInt8](repeating: 0, count: limit + 1)
        let written = output.withUnsafeMutableBufferPointer { out in
            cpng_inflate(input, compressed.count, out.baseAddress, out.count)
        }
        guard written >= 0, written <= limit else { return nil }
        output.removeSubrange(Int(written)...)
        return output
    }

    /// Walks the chunks of a PNG stream. Throws when the signature is missing; a chunk
    /// cut short ends the walk with `isTruncated` set, so callers decide how strict to be.
    static func scan(_ bytes: UnsafeRawBufferPointer) throws -> Layout {
        guard bytes.count >= 8, signature.indices.allSatisfy({ bytes[$0] == signature[$0] }) else {
            throw WebImageError.badImageData("missing PNG signature")
        }
        var chunks: [Chunk] = []
        var offset = 8
        while true {
            guard bytes.count - offset >= 12 else { return Layout(chunks: chunks, isTruncated: offset != bytes.count) }
            let length = Int(readUInt32(bytes, at: offset))
            // PNG caps chunk lengths at 2^31 - 1; the remaining-bytes check avoids overflow.
            guard length <= 0x7FFF_FFFF, length <= bytes.count - offset - 12 else {
                return Layout(chunks: chunks, isTruncated: true)
            }
            let type = readUInt32(bytes, at: offset + 4)
            let start = offset + 8
            chunks.append(Chunk(type: type, payload: start..<start + length, crcOffset: start + length))
            offset = start + length + 4
            if type == IEND { return Layout(chunks: chunks, isTruncated: false) }
        }
    }

    /// A big-endian `UInt32` at `offset`; the caller has checked the four bytes exist.
    static func readUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// A big-endian `UInt16` at `offset`; the caller has checked the two bytes exist.
    static func readUInt16(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// Whether the CRC stored after `chunk` matches its type and payload.
    static func hasValidCRC(_ chunk: Chunk, in bytes: UnsafeRawBufferPointer) -> Bool {
        let typeBytes = UnsafeRawBufferPointer(rebasing: bytes[chunk.payload.lowerBound - 4..<chunk.payload.upperBound])
        return CRC32.checksum(typeBytes) == readUInt32(bytes, at: chunk.crcOffset)
    }

    /// Appends one chunk (length, type, payload, CRC) to `out`.
    static func append(type: UInt32, payload: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        appendUInt32(UInt32(payload.count), to: &out)
        let typeStart = out.count
        appendUInt32(type, to: &out)
        out.append(contentsOf: payload)
        let crc = out.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[typeStart...])) }
        appendUInt32(crc, to: &out)
    }

    /// Appends one chunk whose payload is given as an array.
    static func append(type: UInt32, payload: [UInt8], to out: inout [UInt8]) {
        payload.withUnsafeBytes { append(type: type, payload: $0, to: &out) }
    }

    static func appendUInt32(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }

    static func appendUInt16(_ value: UInt16, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }
}

extension PNGChunks {
    /// CRC-32 as PNG defines it (ISO 3309, reflected, polynomial 0xEDB88320), for checking
    /// the APNG chunks we rewrite and for writing new ones; libpng checks the rest.
    enum CRC32 {
        private static let table: [UInt32] = (0..<256).map { n in
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            return c
        }

        static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
            table.withUnsafeBufferPointer { t in
                var c: UInt32 = 0xFFFF_FFFF
                for byte in bytes { c = t[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
                return c ^ 0xFFFF_FFFF
            }
        }
    }
}
