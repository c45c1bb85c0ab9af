import Foundation
import Testing
@testable import WebImage

@Suite struct PNGCorruptInputTests {
    let coder = PNGCoder()

    /// Decodes, requiring that any failure is a ``WebImageError``.
    func attempt(_ data: Data, options: ImageCoderOptions = ImageCoderOptions()) -> Result<Image, WebImageError> {
        do {
            return .success(try coder.decode(data, options: options))
        } catch let error as WebImageError {
            return .failure(error)
        } catch {
            Issue.record("unexpected error type \(error)")
            return .failure(.badImageData("unexpected"))
        }
    }

    /// The offset just past the last IDAT or fdAT chunk: everything the pixels need.
    func endOfImageData(_ data: Data) throws -> Int {
        try data.withUnsafeBytes { bytes in
            let chunks = try PNGChunks.scan(bytes).chunks
            let last = try #require(chunks.last { $0.type == PNGChunks.IDAT || $0.type == PNGChunks.fdAT })
            return last.crcOffset + 4
        }
    }

    @Test func nonPNGDataIsBadImageData() {
        guard case .failure(.badImageData) = attempt(Data("GIF89a not a png".utf8)) else {
            Issue.record("expected badImageData"); return
        }
    }

    @Test(arguments: ["corpus/TestImage.png", "matrix/ct6_d16_adam7.png", "dispose_previous_over.png"])
    func truncatedDataFailsOrGivesTheWholeFrames(_ name: String) throws {
        let data = try PNGReference.data(name)
        let full = try coder.decode(data, options: ImageCoderOptions())
        let needed = try endOfImageData(data)
        let step = max(1, data.count / 150)
        for cut in stride(from: 0, to: data.count, by: step) + [needed - 1, needed] {
            switch attempt(data.prefix(cut)) {
            case .success(let image) where cut >= needed:
                #expect(image.frames == full.frames, "\(name) cut at \(cut)")
            case .success(let image):
                // Only an animation may decode early, and then only to its whole frames.
                #expect(full.isAnimated, "\(name) cut at \(cut) of \(data.count) decoded")
                #expect(image.frames.count < full.frames.count, "\(name) cut at \(cut)")
                #expect(Array(full.frames.prefix(image.frames.count)) == image.frames, "\(name) cut at \(cut)")
            case .failure(let error):
                #expect(cut < needed, "\(name) cut at \(cut) failed: \(error)")
                guard case .badImageData = error else { Issue.record("\(name) cut at \(cut): \(error)"); continue }
            }
        }
    }

    @Test(arguments: ["corpus/TestImage.png", "corpus/IndexedPNG.png", "dispose_background_over.png", "matrix/ct3_d2_adam7.png"])
    func seededByteFlipsNeverCrash(_ name: String) throws {
        let original = try PNGReference.data(name)
        var generator = SplitMix64(seed: 0x5EED_0000 + UInt64(name.utf8.count))
        var decodedCount = 0
        for _ in 0..<150 {
            var data = original
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let index = data.startIndex + Int(generator.next() % UInt64(data.count))
                data[index] ^= UInt8(truncatingIfNeeded: 1 << (generator.next() % 8))
            }
            if case .success(let image) = attempt(data) {
                decodedCount += 1
                #expect(image.size.pixelCount > 0)
            }
        }
        // Flips in ignored ancillary chunks still decode; CRCs catch most of the others.
        #expect(decodedCount < 150)
    }

    @Test func hugeDeclaredSizeIsRefusedBeforeAnyWork() throws {
        var out = PNGChunks.signature
        var ihdr: [UInt8] = []
        PNGChunks.appendUInt32(60000, to: &ihdr)
        PNGChunks.appendUInt32(60000, to: &ihdr)
        ihdr += [8, 6, 0, 0, 0]
        PNGChunks.append(type: PNGChunks.IHDR, payload: ihdr, to: &out)
        PNGChunks.append(type: PNGChunks.IDAT, payload: [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01], to: &out)
        PNGChunks.append(type: PNGChunks.IEND, payload: [], to: &out)
        let start = ContinuousClock.now
        #expect(throws: WebImageError.imageTooLarge(width: 60000, height: 60000, limit: ImageCoderOptions().pixelLimit)) {
            try coder.decode(Data(out), options: ImageCoderOptions())
        }
        #expect(ContinuousClock.now - start < TestTime.prompt)
    }

    @Test func absurdFrameCountIsRefusedBeforeDecoding() throws {
        var data = [UInt8](try PNGReference.data("dispose_none_over.png"))
        // acTL follows IHDR: 8 signature + 25 IHDR + 8 length/type = its payload at 41.
        #expect(String(decoding: data[37..<41], as: UTF8.self) == "acTL")
        data.replaceSubrange(41..<45, with: [0x7F, 0xFF, 0xFF, 0xFF])
        let crc = data.withUnsafeBytes { PNGChunks.CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[37..<49])) }
        var crcBytes: [UInt8] = []
        PNGChunks.appendUInt32(crc, to: &crcBytes)
        data.replaceSubrange(49..<53, with: crcBytes)
        guard case .failure(.imageTooLarge) = attempt(Data(data)) else { Issue.record("expected imageTooLarge"); return }
    }

    /// A review's finding: every PLTE and tRNS chunk before the image data, of any number
    /// and size, was copied into each frame's stream (and CRC-checked by libpng per frame).
    /// Now the first tRNS of at most 256 bytes is the one copied, as libpng keeps it, and a
    /// palette of more than 256 entries is refused.
    @Test func onlyOneBoundedTRNSIsCopiedIntoEachFrameAndAnOversizedPaletteIsRefused() throws {
        let original = [UInt8](try PNGReference.data("dispose_none_over.png"))
        // After the acTL chunk (ends at 53): three more tRNS chunks, one of 1,000 bytes.
        func inserting(_ chunks: [(UInt32, [UInt8])]) -> Data {
            var extra: [UInt8] = []
            for (type, payload) in chunks { PNGChunks.append(type: type, payload: payload, to: &extra) }
            return Data(original[..<53] + extra + original[53...])
        }
        let transparency = inserting([
            (PNGChunks.tRNS, [0, 1, 0, 2, 0, 3]), (PNGChunks.tRNS, [UInt8](repeating: 7, count: 1_000)),
            (PNGChunks.tRNS, [0, 4, 0, 5, 0, 6]),
        ])
        let shared = try transparency.withUnsafeBytes { bytes in
            let layout = try PNGChunks.scan(bytes)
            let header = try PNGDecoder.header(of: layout, in: bytes)
            return try APNGDecoder.animation(in: layout, bytes: bytes, header: header, options: ImageCoderOptions())?.sharedChunks
        }
        #expect(shared?.count == 1)
        #expect(shared.map { $0.map(\.count) } == [6 + 12])
        let expected = try coder.decode(Data(original), options: ImageCoderOptions())
        #expect(try coder.decode(transparency, options: ImageCoderOptions()).frames.map(\.pixels) == expected.frames.map(\.pixels))

        let palette = inserting([(PNGChunks.PLTE, [UInt8](repeating: 0, count: 3 * 257))])
        guard case .failure(.badImageData) = attempt(palette) else { Issue.record("expected badImageData"); return }
    }

    @Test func aMissingIHDRIsBadImageData() {
        var out = PNGChunks.signature
        PNGChunks.append(type: PNGChunks.IEND, payload: [], to: &out)
        guard case .failure(.badImageData) = attempt(Data(out)) else { Issue.record("expected badImageData"); return }
    }
}
