import Foundation
import Testing
@testable import WebImage

/// An XMP packet in a compressed `iTXt` chunk (flag 1, zlib), as Pillow and exiftool read
/// it: its orientation is applied and the packet kept. A review found such packets skipped,
/// so the orientation and the packet were lost. A packet that inflates past
/// ``ImageMetadata/maximumBlockSize``, or a damaged stream, counts as none.
@Suite struct PNGCompressedXMPTests {
    /// A zlib stream holding `bytes` in stored (uncompressed) deflate blocks: valid zlib
    /// without a compressor, each block at most 65,535 bytes.
    static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = [0x78, 0x01]
        var at = 0
        repeat {
            let count = min(65_535, bytes.count - at)
            let isLast = at + count == bytes.count
            stream.append(isLast ? 1 : 0)
            stream += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8(~count >> 8 & 0xFF)]
            stream += bytes[at..<at + count]
            at += count
        } while at < bytes.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        let adler = b << 16 | a
        return stream + [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
    }

    /// The 12 × 8 test PNG with a compressed XMP `iTXt` chunk holding `stream` before its
    /// image data.
    static func png(compressedXMP stream: [UInt8]) throws -> Data {
        let plain = [UInt8](try XMPOrientationTests.stored(metadata: ImageMetadata(), format: .png))
        return try plain.withUnsafeBytes { bytes in
            let layout = try PNGChunks.scan(bytes)
            let idat = try #require(layout.chunks.first { $0.type == PNGChunks.IDAT })
            let insertAt = idat.payload.lowerBound - 8
            var out = Array(bytes[..<insertAt])
            // Keyword, NUL, compression flag 1 and method 0, empty language tag and
            // translated keyword, then the stream.
            let payload = Array(PNGChunks.xmpKeyword.utf8) + [0, 1, 0, 0, 0] + stream
            PNGChunks.append(type: PNGChunks.iTXt, payload: payload, to: &out)
            return Data(out + bytes[insertAt...])
        }
    }

    @Test func aCompressedPacketsOrientationIsAppliedAndThePacketKept() throws {
        let packet = XMPOrientationTests.packet(orientation: 6)
        let data = try Self.png(compressedXMP: Self.zlibStored([UInt8](packet)))
        // exiftool reads the hand-made chunk as the packet it holds.
        #expect(try ExifTool.tags(of: data, ext: "png")["XMP:Orientation"] as? Int == 6)

        var options = ImageCoderOptions()
        options.readsMetadata = true
        let image = try PNGCoder().decode(data, options: options)
        #expect(image.orientation == .right)
        #expect(image.size == ImageSize(width: 8, height: 12))
        let xmp = try #require(image.metadata.xmp)
        #expect(xmp.count == packet.count, "the whole packet, inflated")
        let kept = String(decoding: xmp, as: UTF8.self)
        #expect(kept.contains(#"tiff:Orientation="1""#), "reset once applied: \(kept)")
    }

    @Test func aPacketPastTheLimitOrADamagedStreamCountsAsNone() throws {
        var tooLarge = [UInt8](XMPOrientationTests.packet(orientation: 6))
        tooLarge += [UInt8](repeating: 0x20, count: ImageMetadata.maximumBlockSize + 1 - tooLarge.count)
        var damaged = Self.zlibStored([UInt8](XMPOrientationTests.packet(orientation: 6)))
        damaged[damaged.count - 1] ^= 0xFF   // the Adler-32 no longer matches
        for stream in [Self.zlibStored(tooLarge), damaged] {
            var options = ImageCoderOptions()
            options.readsMetadata = true
            let image = try PNGCoder().decode(Self.png(compressedXMP: stream), options: options)
            #expect(image.orientation == .up)
            #expect(image.size == ImageSize(width: 12, height: 8))
            #expect(image.metadata.xmp == nil)
        }
    }
}
