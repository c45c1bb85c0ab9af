import CPNG
import Foundation

/// libpng, wrapped: encodes one RGBA buffer as an 8-bit PNG stream, or a run of frames
/// as an animated PNG. Stateless; thread-safe.
enum PNGEncoder {
    /// zlib level 6: libpng's and Pillow's default, the usual balance of size and speed.
    static let compressionLevel: Int32 = 6

    /// A complete PNG of `pixels`: colour type RGBA, or RGB when `keepAlpha` is false,
    /// with `metadata`: the profile in an iCCP chunk (libpng's), EXIF in `eXIf` and XMP in
    /// an `iTXt` chunk keyed `XML:com.adobe.xmp`, before the image data. A profile libpng
    /// refuses (stricter than Little CMS about its header and tag table) is not lost
    /// silently with the pixels left in its colours: they are converted to sRGB and written
    /// without it.
    static func encode(_ pixels: PixelBuffer, keepAlpha: Bool, metadata: EncodedMetadata = EncodedMetadata()) throws -> [UInt8] {
        if let png = try attempt(pixels, keepAlpha: keepAlpha, metadata: metadata) { return png }
        let (converted, plain) = inSRGB([ImageFrame(pixels: pixels)], metadata)
        return try encode(converted[0].pixels, keepAlpha: keepAlpha, metadata: plain)
    }

    /// `frames` converted from `metadata`'s profile to sRGB, and `metadata` without it.
    private static func inSRGB(_ frames: [ImageFrame], _ metadata: EncodedMetadata) -> ([ImageFrame], EncodedMetadata) {
        var frames = frames
        var plain = metadata
        plain.colorProfile = nil
        _ = ColorConversion.apply(metadata.colorProfile, to: &frames, options: ImageCoderOptions())
        return (frames, plain)
    }

    /// The PNG, or `nil` when libpng refused the profile of `metadata`.
    private static func attempt(_ pixels: PixelBuffer, keepAlpha: Bool, metadata: EncodedMetadata) throws -> [UInt8]? {
        guard pixels.width <= 0x7FFF_FFFF, pixels.height <= 0x7FFF_FFFF else {
            throw WebImageError.encodingFailed("PNG: \(pixels.size) exceeds the format's size limit")
        }
        var buffer = cpng_buffer()
        defer { cpng_buffer_free(&buffer) }
        var message = [CChar](repeating: 0, count: 160)
        let icc = metadata.colorProfile.map { [UInt8]($0.data) } ?? []
        let status = pixels.bytes.withUnsafeBufferPointer { source in
            icc.withUnsafeBufferPointer { profile in
                cpng_encode(
                    source.baseAddress, UInt32(pixels.width), UInt32(pixels.height), pixels.bytesPerRow,
                    keepAlpha ? 1 : 0, compressionLevel, profile.baseAddress, UInt32(profile.count),
                    &buffer, &message, message.count
                )
            }
        }
        if status == CPNG_PROFILE_REFUSED, metadata.colorProfile != nil { return nil }
        guard status == 0, let data = buffer.data else {
            let reason = String(cBuffer: message)
            throw WebImageError.encodingFailed("PNG: " + (reason.isEmpty ? "libpng failed" : reason))
        }
        let png = Array(UnsafeBufferPointer(start: data, count: buffer.size))
        guard metadata.exif != nil || metadata.xmp != nil else { return png }
        return try inserting(exif: metadata.exif, xmp: metadata.xmp, into: png)
    }

    /// `png` with an `eXIf` chunk holding `exif` and an uncompressed `iTXt` chunk holding
    /// `xmp` placed before its first IDAT, where readers look for them (libpng 1.6 writes
    /// eXIf only through a call that cannot take arbitrary blocks, and XMP not at all).
    private static func inserting(exif: Data?, xmp: Data?, into png: [UInt8]) throws -> [UInt8] {
        try png.withUnsafeBytes { bytes in
            let layout = try PNGChunks.scan(bytes)
            guard let idat = layout.chunks.first(where: { $0.type == PNGChunks.IDAT }) else {
                throw WebImageError.encodingFailed("PNG: libpng wrote no IDAT")
            }
            let insertAt = idat.payload.lowerBound - 8
            var out = Array(bytes[..<insertAt])
            if let exif { PNGChunks.append(type: PNGChunks.eXIf, payload: [UInt8](exif), to: &out) }
            if let xmp {
                // Keyword, NUL, compression flag 0 and method 0, empty language tag and
                // translated keyword (each NUL-terminated), then the text.
                var payload = Array(PNGChunks.xmpKeyword.utf8) + [0, 0, 0, 0, 0]
                payload.append(contentsOf: xmp)
                PNGChunks.append(type: PNGChunks.iTXt, payload: payload, to: &out)
            }
            out.append(contentsOf: bytes[insertAt...])
            return out
        }
    }

    /// An animated PNG: libpng compresses each frame, and the frame's IDAT data is placed
    /// in the file as IDAT (the first frame, which is also the default image that non-APNG
    /// viewers show) or as fdAT chunks after an fcTL.
    ///
    /// An APNG of `frames` (all the same size), playing `loopCount` times (0 = forever).
    static func encodeAnimation(
        _ frames: [ImageFrame], loopCount: Int, keepAlpha: Bool, metadata: EncodedMetadata = EncodedMetadata()
    ) throws -> [UInt8] {
        guard let first = frames.first else { throw WebImageError.encodingFailed("APNG: no frames") }
        guard frames.allSatisfy({ $0.pixels.size == first.pixels.size }) else {
            throw WebImageError.encodingFailed("APNG: frames differ in size")
        }
        guard frames.count <= 0x7FFF_FFFF else { throw WebImageError.encodingFailed("APNG: too many frames") }
        var out = PNGChunks.signature
        var sequence: UInt32 = 0
        for (index, frame) in frames.enumerated() {
            let encoded = try attempt(frame.pixels, keepAlpha: keepAlpha, metadata: index == 0 ? metadata : EncodedMetadata())
            guard let png = encoded else {
                // The first frame's profile was refused: every frame to sRGB, then again.
                let (converted, plain) = inSRGB(frames, metadata)
                return try encodeAnimation(converted, loopCount: loopCount, keepAlpha: keepAlpha, metadata: plain)
            }
            try png.withUnsafeBytes { bytes in
                let layout = try PNGChunks.scan(bytes)
                guard let ihdr = layout.chunks.first, ihdr.type == PNGChunks.IHDR else {
                    throw WebImageError.encodingFailed("APNG: libpng wrote no IHDR")
                }
                if index == 0 {
                    out.append(contentsOf: bytes[ihdr.payload.lowerBound - 8..<ihdr.crcOffset + 4])
                    var actl: [UInt8] = []
                    PNGChunks.appendUInt32(UInt32(frames.count), to: &actl)
                    PNGChunks.appendUInt32(UInt32(clamping: max(0, loopCount)), to: &actl)
                    PNGChunks.append(type: PNGChunks.acTL, payload: actl, to: &out)
                    // The profile and metadata written with the first frame describe them all.
                    let described = [PNGChunks.iCCP, PNGChunks.eXIf, PNGChunks.iTXt]
                    for chunk in layout.chunks where described.contains(chunk.type) {
                        out.append(contentsOf: bytes[chunk.payload.lowerBound - 8..<chunk.crcOffset + 4])
                    }
                }
                let control = APNGFrameControl(sequence: sequence, size: frame.pixels.size, duration: frame.duration)
                PNGChunks.append(type: PNGChunks.fcTL, payload: control.payload, to: &out)
                sequence += 1
                for chunk in layout.chunks where chunk.type == PNGChunks.IDAT {
                    if index == 0 {
                        out.append(contentsOf: bytes[chunk.payload.lowerBound - 8..<chunk.crcOffset + 4])
                    } else {
                        var fdat: [UInt8] = []
                        fdat.reserveCapacity(chunk.payload.count + 4)
                        PNGChunks.appendUInt32(sequence, to: &fdat)
                        fdat.append(contentsOf: bytes[chunk.payload])
                        PNGChunks.append(type: PNGChunks.fdAT, payload: fdat, to: &out)
                        sequence += 1
                    }
                }
            }
        }
        PNGChunks.append(type: PNGChunks.IEND, payload: [], to: &out)
        return out
    }
}
