import Foundation
import Testing
@testable import WebImage

@Suite struct BMPCorruptInputTests {
    let coder = BMPCoder()

    func fixture(_ name: String) throws -> Data { try PNGReference.data(name, folder: "bmp") }

    func attempt(_ data: Data) -> Result<Image, WebImageError> {
        do {
            return .success(try coder.decode(data, options: ImageCoderOptions()))
        } catch let error as WebImageError {
            return .failure(error)
        } catch {
            Issue.record("unexpected error type \(error)")
            return .failure(.badImageData("unexpected"))
        }
    }

    /// A 40-byte-header bitmap with the given fields and `payload` after the headers.
    func bitmap(width: Int32, height: Int32, bits: UInt16, compression: UInt32 = 0, offset: UInt32 = 54, payload: [UInt8] = []) -> Data {
        var out: [UInt8] = Array("BM".utf8)
        func u16(_ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { u16(UInt16(v & 0xFFFF)); u16(UInt16(v >> 16)) }
        u32(UInt32(54 + payload.count)); u32(0); u32(offset)
        u32(40); u32(UInt32(bitPattern: width)); u32(UInt32(bitPattern: height)); u16(1); u16(bits)
        u32(compression); u32(0); u32(0); u32(0); u32(0); u32(0)
        return Data(out + payload)
    }

    @Test func hugeDeclaredSizeIsRefusedBeforeAnyWork() {
        let start = ContinuousClock.now
        #expect(throws: WebImageError.imageTooLarge(width: 60000, height: 60000, limit: ImageCoderOptions().pixelLimit)) {
            try coder.decode(bitmap(width: 60000, height: 60000, bits: 24, payload: [0, 0, 0, 0]), options: ImageCoderOptions())
        }
        #expect(ContinuousClock.now - start < TestTime.prompt)
    }

    @Test func invalidHeadersAreRefused() {
        let cases: [(String, Data)] = [
            ("zero width", bitmap(width: 0, height: 1, bits: 24, payload: [0, 0, 0, 0])),
            ("minimum height", bitmap(width: 1, height: Int32.min, bits: 24, payload: [0, 0, 0, 0])),
            ("pixel offset past the end", bitmap(width: 1, height: 1, bits: 24, offset: 9999, payload: [0, 0, 0, 0])),
            ("pixel offset inside the header", bitmap(width: 1, height: 1, bits: 24, offset: 20, payload: [0, 0, 0, 0])),
            ("unknown compression", bitmap(width: 1, height: 1, bits: 24, compression: 9, payload: [0, 0, 0, 0])),
            ("header cut", Data(bitmap(width: 1, height: 1, bits: 24).prefix(30))),
        ]
        for (label, data) in cases {
            guard case .failure(.badImageData) = attempt(data) else { Issue.record("\(label): expected badImageData"); continue }
        }
        guard case .failure(.unsupportedFormat(.bmp)) = attempt(bitmap(width: 1, height: 1, bits: 2, payload: [0, 0, 0, 0])) else {
            Issue.record("2-bit: expected unsupportedFormat"); return
        }
    }

    @Test(arguments: ["pillow_24bit.bmp", "4bit_12colours.bmp", "32bit_v4_alpha.bmp", "os2_8bit.bmp"])
    func truncatedUncompressedDataFails(_ name: String) throws {
        let data = try fixture(name)
        let full = try coder.decode(data, options: ImageCoderOptions())
        // Only the last row's padding may be missing.
        let padding = (4 - (full.size.width * Int(data[data.startIndex + 28 - (name.hasPrefix("os2") ? 4 : 0)]) + 7) / 8 % 4) % 4
        for cut in 0..<data.count {
            switch attempt(data.prefix(cut)) {
            case .success(let image):
                #expect(cut >= data.count - padding, "\(name) cut at \(cut) decoded")
                #expect(image.pixels == full.pixels)
            case .failure(let error):
                guard case .badImageData = error else { Issue.record("\(name) cut at \(cut): \(error)"); continue }
            }
        }
    }

    @Test(arguments: ["rle8.bmp", "rle4.bmp"])
    func truncatedRunLengthDataGivesAPartialImage(_ name: String) throws {
        let data = try fixture(name)
        let full = try coder.decode(data, options: ImageCoderOptions())
        #expect(!full.hasAlpha)
        let offset = Int(data[data.startIndex + 10]) | Int(data[data.startIndex + 11]) << 8
        for cut in stride(from: offset + 2, to: data.count - 2, by: 3) {
            guard case .success(let image) = attempt(data.prefix(cut)) else { Issue.record("\(name) cut at \(cut) failed"); continue }
            // Pixels never reached are transparent, and the image says it has alpha then.
            #expect(image.hasAlpha == image.pixels.containsTransparency, "\(name) cut at \(cut)")
            if cut < data.count - 40 { #expect(image.hasAlpha, "\(name) cut at \(cut)") }
            // The bottom row is decoded first and is complete once its end-of-line arrives.
            let bottom = full.size.height - 1
            let decoded = (0..<full.size.width).filter { image.pixels[pixel: $0, bottom].alpha == 255 }
            #expect(decoded.allSatisfy { image.pixels[pixel: $0, bottom] == full.pixels[pixel: $0, bottom] })
        }
    }

    @Test(arguments: ["pillow_8bit_palette.bmp", "rle8_skips.bmp", "rle4.bmp", "16bit_565.bmp", "32bit_v5_alpha_topdown.bmp", "os2_24bit.bmp"])
    func seededByteFlipsNeverCrash(_ name: String) throws {
        let original = try fixture(name)
        var generator = SplitMix64(seed: 0xB0B0 + UInt64(name.utf8.count))
        for _ in 0..<300 {
            var data = original
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                // Flip mostly in the headers, where the offsets and sizes are.
                let span = generator.next() % 2 == 0 ? min(data.count, 160) : data.count
                let index = data.startIndex + Int(generator.next() % UInt64(span))
                data[index] ^= UInt8(truncatingIfNeeded: 1 << (generator.next() % 8))
            }
            if case .success(let image) = attempt(data) {
                #expect(image.size.pixelCount > 0)
            }
        }
    }

    @Test func rleRunsAndDeltasPastTheEdgesAreClipped() throws {
        // 2x2 RLE8: a run of 200 pixels, a delta far out of the image, an absolute run.
        let payload: [UInt8] = [0, 0, 0, 0, 255, 255, 255, 0] + [200, 1, 0, 2, 250, 250, 0, 5, 1, 1, 1, 1, 1, 0, 0, 1]
        let data = bitmap(width: 2, height: 2, bits: 8, compression: 1, offset: 62, payload: payload)
        let image = try coder.decode(data, options: ImageCoderOptions())
        #expect(image.pixels[pixel: 0, 1] == .white)
        #expect(image.pixels[pixel: 1, 1] == .white)
        #expect(image.pixels[pixel: 0, 0] == .clear)
    }
}
