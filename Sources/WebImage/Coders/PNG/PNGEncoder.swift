import CPNG
import Foundation

/// libpng, wrapped: encodes one RGBA buffer as an 8-bit PNG stream, or a run of frames
/// as an animated PNG. Stateless; thread-safe.
enum PNGEncoder {
    /// zlib level 6: libpng's and Pillow's default, the usual balance of size and speed.
    static let compressionLevel: Int32 = 6

    /// A complete PNG of `pixels`: colour type RGBA, or RGB when `keepAlpha` is false,
    /// with `colorProfile` in an iCCP chunk when there is one.
    static func encode(_ pixels: PixelBuffer, keepAlpha: Bool, colorProfile: ColorProfile? = nil) throws -> [UInt8] {
        guard pixels.width <= 0x7FFF_FFFF, pixels.height <= 0x7FFF_FFFF else {
            throw WebImageError.encodingFailed("PNG: \(pixels.size) exceeds the format's size limit")
        }
        var buffer = cpng_buffer()
        defer { cpng_buffer_free(&buffer) }
        var message = [CChar](repeating: 0, count: 160)
        let icc = colorProfile.map { [UInt8]($0.data) } ?? []
        let status = pixels.bytes.withUnsafeBufferPointer { source in
            icc.withUnsafeBufferPointer { profile in
                cpng_encode(
                    source.baseAddress, UInt32(pixels.width), UInt32(pixels.height), pixels.bytesPerRow,
                    keepAlpha ? 1 : 0, compressionLevel, profile.baseAddress, UInt32(profile.count),
                    &buffer, &message, message.count
                )
            }
        }
        guard status == 0, let data = buffer.data else {
            let reason = String(cBuffer: message)
            throw WebImageError.encodingFailed("PNG: " + (reason.isEmpty ? "libpng failed" : reason))
        }
        return Array(UnsafeBufferPointer(start: data, count: buffer.size))
    }

    /// An animated PNG: libpng compresses each frame, and the frame's IDAT data is placed
    /// in the file as IDAT (the first frame, which is also the default image that non-APNG
    /// viewers show) or as fdAT chunks after an fcTL.
    ///
    /// An APNG of `frames` (all the same size), playing `loopCount` times (0 = forever).
    static func encodeAnimation(
        _ frames: [ImageFrame], loopCount: Int, keepAlpha: Bool, colorProfile: ColorProfile? = nil
    ) throws -> [UInt8] {
        guard let first = frames.first else { throw WebImageError.encodingFailed("APNG: no frames") }
        guard frames.allSatisfy({ $0.pixels.size == first.pixels.size }) else {
            throw WebImageError.encodingFailed("APNG: frames differ in size")
        }
        guard frames.count <= 0x7FFF_FFFF else { throw WebImageError.encodingFailed("APNG: too many frames") }
        var out = PNGChunks.signature
        var sequence: UInt32 = 0
        for (index, frame) in frames.enumerated() {
            let png = try encode(frame.pixels, keepAlpha: keepAlpha, colorProfile: index == 0 ? colorProfile : nil)
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
                    // The profile libpng wrote for the first frame describes them all.
                    for chunk in layout.chunks where chunk.type == PNGChunks.iCCP {
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
