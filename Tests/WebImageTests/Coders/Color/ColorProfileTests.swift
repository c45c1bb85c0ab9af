import CLCMS
import Foundation
import Testing
@testable import WebImage

/// ``ColorProfile`` parsing, the per-profile transform cache, and the option that keeps a
/// source's profile: decoders attach it, and every encoder that can embed one does.
@Suite struct ColorProfileTests {
    static func displayP3() throws -> ColorProfile {
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        let image = try JPEGCoder().decode(try ColorFixtureTests.fixture("display-p3.jpg"), options: keep)
        return try #require(image.colorProfile)
    }

    @Test func readsTheProfileOfEachContainer() throws {
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        for file in ["display-p3.jpg", "display-p3.png", "display-p3.webp", "display-p3.avif", "display-p3.heic"] {
            let image = try CodersManager.shared.decode(try ColorFixtureTests.fixture(file), options: keep)
            #expect(image.colorProfile?.name == "Display P3", "\(file)")
            #expect(image.colorProfile?.colorSpace == .rgb)
        }
        let tiff = try CodersManager.shared.decode(try ColorFixtureTests.fixture("adobe-rgb.tiff"), options: keep)
        #expect(tiff.colorProfile?.name?.contains("Adobe") == true)
    }

    @Test func refusesBytesThatAreNotAProfile() {
        #expect(throws: WebImageError.self) { try ColorProfile(iccData: Data(repeating: 7, count: 400)) }
        #expect(throws: WebImageError.self) { try ColorProfile(iccData: Data()) }
        var header = [UInt8](repeating: 0, count: 200)
        header[0...3] = [0, 0, 0x10, 0]          // declares 4096 bytes, has 200
        header[36...39] = Array("acsp".utf8)[...]
        #expect(throws: WebImageError.self) { try ColorProfile(iccData: Data(header)) }
    }

    @Test func aDamagedProfileIsIgnoredAndTheImageStillDecodes() throws {
        let stored = try PNGCoder().decode(try ColorFixtureTests.fixture("display-p3.png"), options: ImageCoderOptions())
        // A profile whose header is right and whose tags are garbage: libjpeg embeds any
        // bytes, and Little CMS refuses them on reading.
        var junk = [UInt8](try Self.displayP3().data)
        for index in 128..<junk.count { junk[index] = 0xA5 }
        let damaged = Image(frames: stored.frames, hasAlpha: false, colorProfile: try ColorProfile(iccData: Data(junk)))
        let plain = Image(frames: stored.frames, hasAlpha: false)
        let withJunk = try JPEGCoder().decode(try JPEGCoder().encode(damaged, as: .jpeg, options: ImageCoderOptions()), options: ImageCoderOptions())
        let without = try JPEGCoder().decode(try JPEGCoder().encode(plain, as: .jpeg, options: ImageCoderOptions()), options: ImageCoderOptions())
        #expect(withJunk.pixels == without.pixels)
    }

    @Test func oneTransformPerProfileNotPerImage() throws {
        let cache = ColorTransformCache(capacity: 2)
        let p3 = try Self.displayP3()
        let first = try cache.transform(for: p3, input: .rgba)
        let second = try cache.transform(for: ColorProfile(iccData: p3.data), input: .rgba)
        #expect(first === second)
        #expect(cache.count == 1)
        _ = try cache.transform(for: ColorProfile.sRGB, input: .rgba)
        _ = try cache.transform(for: ColorProfile.cicp(primaries: 9, transfer: 13).map { $0 } ?? p3, input: .rgba)
        #expect(cache.count == 2)   // bounded: the least recently used went
        #expect(try cache.transform(for: p3, input: .rgba) !== first)
    }

    @Test func sRGBItselfChangesNothing() throws {
        #expect(try ColorTransform(profile: .sRGB, input: .rgba).isIdentity)
        #expect(try !ColorTransform(profile: Self.displayP3(), input: .rgba).isIdentity)
        #expect(ColorProfile.cicp(primaries: 1, transfer: 13) == nil)
        #expect(ColorProfile.cicp(primaries: 12, transfer: 13) != nil)
        #expect(ColorProfile.cicp(primaries: 9, transfer: 16) == nil)   // PQ: not converted
    }

    @Test func alphaIsUntouched() throws {
        let transform = try ColorTransform(profile: Self.displayP3(), input: .rgba)
        var pixels: [UInt8] = [255, 0, 0, 17, 10, 200, 30, 0, 128, 128, 128, 254]
        pixels.withUnsafeMutableBufferPointer { transform.convert($0) }
        #expect([pixels[3], pixels[7], pixels[11]] == [17, 0, 254])
        #expect(pixels[0...2] == [255, 0, 0])   // P3 red is outside sRGB: clipped to sRGB red
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .webp, .avif])
    func encodersEmbedAKeptProfile(format: ImageFormat) throws {
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        let source = try JPEGCoder().decode(try ColorFixtureTests.fixture("display-p3.jpg"), options: keep)
        let profile = try #require(source.colorProfile)
        var options = ImageCoderOptions()
        options.lossless = true
        let encoded = try CodersManager.shared.encode(source, as: format, options: options)
        let back = try CodersManager.shared.decode(encoded, options: keep)
        #expect(back.colorProfile == profile, "\(format) lost the profile")
        // Decoded by default, the embedded profile is applied: the colours are P3's in sRGB.
        let converted = try CodersManager.shared.decode(encoded)
        #expect(converted.colorProfile == nil)
        let expected = try PNGCoder().decode(try ColorFixtureTests.fixture("display-p3.jpg.expected.png"), options: ImageCoderOptions())
        #expect(ColorFixtureTests.psnr(converted.pixels, expected.pixels) >= 30, "\(format)")
    }

    @Test func transformersKeepTheProfile() throws {
        let source = Image(pixels: PixelBuffer(width: 4, height: 4, filling: .white), hasAlpha: false)
        let tagged = Image(frames: source.frames, hasAlpha: false, colorProfile: try Self.displayP3())
        let flipped = try FlipTransformer(horizontal: true, vertical: false).transform(tagged)
        #expect(flipped.colorProfile == tagged.colorProfile)
    }

    /// The fuzzer's file (Fuzz/README.md, finding 8): a TIFF whose fuzzed CMYK profile
    /// declares a lookup table that Little CMS allocated 233 MB for in one malloc, inside
    /// `cmsReadTag`, when the transform was made. Little CMS now refuses any single
    /// allocation over 48 MiB, and the file decodes (or fails) without it.
    @Test func littleCMSRefusesOneAllocationOverTheLimit() throws {
        #expect(ColorProfile.allocationsLimited)
        // 60⁴ grid points of 3 16-bit outputs: 78 MB, over the limit; 50⁴: 37.5 MB, under.
        let over = cmsStageAllocCLut16bit(nil, 60, 4, 3, nil)
        #expect(over == nil)
        if let over { cmsStageFree(over) }
        let under = cmsStageAllocCLut16bit(nil, 50, 4, 3, nil)
        #expect(under != nil)
        if let under { cmsStageFree(under) }
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("fuzz/decode-tiff-lcms-table-oom.tiff"))
        _ = try? CodersManager.shared.decode(data, options: ImageCoderOptions())
    }
}
