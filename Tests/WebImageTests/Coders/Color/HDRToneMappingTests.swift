import Foundation
import Testing
@testable import WebImage

/// The HDR steps against the standards' published values, and the mapping's promises
/// (white, black, gamut, alpha). The decoders' end-to-end agreement is in
/// ColorFixtureTests (`hdr-*` fixtures).
@Suite struct HDRToneMappingTests {
    /// SMPTE ST 2084's reference points (also BT.2100 Table 4's examples).
    @Test(arguments: [(0.0, 0.0), (0.508078, 100.0), (0.580690, 203.0), (0.751827, 1_000.0), (1.0, 10_000.0)])
    func pqCurveMeetsST2084(code: Double, nits: Double) {
        #expect(abs(HDRToneMapping.pqToNits(code) - nits) <= max(0.001, nits * 0.002))
        #expect(abs(HDRToneMapping.nitsToPQ(nits) - code) < 0.0005)
    }

    /// ARIB STD-B67: half signal is a twelfth of the light, full signal all of it.
    @Test func hlgCurveMeetsSTDB67() {
        #expect(abs(HDRToneMapping.hlgToScene(0.5) - 1.0 / 12) < 1e-9)
        #expect(abs(HDRToneMapping.hlgToScene(1) - 1) < 1e-6)
        #expect(HDRToneMapping.hlgToScene(0) == 0)
    }

    /// BT.2390's EETF: untouched below the knee, the content peak lands on 203 nits, and
    /// nothing in between goes backwards or past it.
    @Test func toneCurveKeepsTheDarkAndRollsOffTheBright() {
        for nits in [0.0, 1, 10, 50, 80] {
            #expect(abs(HDRToneMapping.eetf(nits, peak: 1_000) - nits) < 1e-6, "\(nits) nits")
        }
        #expect(abs(HDRToneMapping.eetf(1_000, peak: 1_000) - 203) < 0.01)
        var previous = 0.0
        for step in 0...1_000 {
            let mapped = HDRToneMapping.eetf(Double(step), peak: 1_000)
            #expect(mapped >= previous - 1e-9 && mapped <= 203.01)
            previous = mapped
        }
        // A source no brighter than the target needs no roll-off.
        #expect(HDRToneMapping.eetf(150, peak: 180) == 150)
    }

    /// One 10-bit RGBA pixel through a PQ mapping for BT.2020.
    func mapped(_ red: Int, _ green: Int, _ blue: Int, alpha: Int = 1023, transfer: Int = 16) throws -> [UInt8] {
        let mapping = try #require(HDRToneMapping(primaries: 9, transfer: transfer, sampleMaximum: 1023))
        let samples: [UInt16] = [UInt16(red), UInt16(green), UInt16(blue), UInt16(alpha)]
        var out = [UInt8](repeating: 0, count: 4)
        samples.withUnsafeBytes { source in
            out.withUnsafeMutableBufferPointer { destination in
                mapping.map(source.baseAddress!, sourceRowBytes: 8, width: 1, height: 1, into: destination.baseAddress!)
            }
        }
        return out
    }

    static func sRGBCode(linear: Double) -> Int {
        Int((255 * (linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055)).rounded())
    }

    @Test func greyBelowTheKneeKeepsItsLightRelativeTo203Nits() throws {
        let code = Int((HDRToneMapping.nitsToPQ(50) * 1023).rounded())
        let nits = HDRToneMapping.pqToNits(Double(code) / 1023)
        let expected = Self.sRGBCode(linear: nits / 203)
        let pixel = try mapped(code, code, code)
        for channel in 0..<3 { #expect(abs(Int(pixel[channel]) - expected) <= 1, "\(pixel) against \(expected)") }
    }

    @Test func thePeakIsWhiteAndZeroIsBlack() throws {
        #expect(try mapped(1023, 1023, 1023) == [255, 255, 255, 255])
        #expect(try mapped(0, 0, 0) == [0, 0, 0, 255])
        #expect(try mapped(0, 0, 0, transfer: 18) == [0, 0, 0, 255])
    }

    /// A pure BT.2020 green lies outside sRGB: it comes out the most saturated sRGB
    /// green of its kind, not a channel wrapped or clipped at zero into another hue.
    @Test func outOfGamutColoursAreDesaturatedNotWrapped() throws {
        let pixel = try mapped(0, Int((HDRToneMapping.nitsToPQ(60) * 1023).rounded()), 0)
        #expect(pixel[1] > pixel[0] && pixel[1] > pixel[2])
        #expect(pixel[0] < 128 && pixel[2] < 128)
    }

    @Test func alphaIsRescaledAndRounded() throws {
        #expect(try mapped(0, 0, 0, alpha: 512)[3] == 128)
        #expect(try mapped(0, 0, 0, alpha: 2)[3] == 0)
        #expect(try mapped(0, 0, 0, alpha: 3)[3] == 1)
    }

    /// HLG's reference white (75 % signal) is BT.2408's 203 nits on a 1,000-nit display:
    /// close to sRGB white once the roll-off has had its say.
    @Test func hlgReferenceWhiteIsNearWhite() throws {
        let pixel = try mapped(767, 767, 767, transfer: 18)
        #expect(pixel[0] >= 225 && pixel[0] == pixel[1] && pixel[1] == pixel[2], "\(pixel)")
    }

    @Test func onlyPQAndHLGAreHDR() {
        #expect(HDRToneMapping(primaries: 9, transfer: 16, sampleMaximum: 1023) != nil)
        #expect(HDRToneMapping(primaries: 9, transfer: 18, sampleMaximum: 1023) != nil)
        #expect(HDRToneMapping(primaries: 2, transfer: 16, sampleMaximum: 1023) != nil)
        #expect(HDRToneMapping(primaries: 1, transfer: 13, sampleMaximum: 1023) == nil)
        #expect(HDRToneMapping(primaries: 9, transfer: 14, sampleMaximum: 1023) == nil)
        #expect(HDRToneMapping(primaries: 99, transfer: 16, sampleMaximum: 1023) == nil)
    }

    /// One set of tables per distinct description, not per image or frame: the same key
    /// gives the cached mapping; the cache stays within its capacity however many peaks the
    /// files state; the sample range is part of the key.
    @Test func mappingsAreMadeOncePerDescription() throws {
        let cache = ConversionCache<HDRToneMapping.CacheKey, HDRToneMapping?>(capacity: 4)
        func cached(peak: Double, maximum: Int = 1023, transfer: Int = 16) -> HDRToneMapping? {
            HDRToneMapping.cached(primaries: 9, transfer: transfer, contentPeak: peak, sampleMaximum: maximum, in: cache)
        }
        let first = try #require(cached(peak: 1_234))
        #expect(first.contentPeak == 1_234 && cache.count == 1)
        _ = cached(peak: 1_234)
        #expect(cache.count == 1)
        let twelveBit = try #require(cached(peak: 1_234, maximum: 4095))
        #expect(twelveBit.sampleMaximum == 4095 && cache.count == 2)
        for peak in 300..<340 { _ = cached(peak: Double(peak)) }
        #expect(cache.count == 4)
        #expect(cached(peak: 1_000, transfer: 13) == nil)
        #expect(HDRToneMapping(primaries: 9, transfer: 16, sampleMaximum: 0) == nil)
        #expect(HDRToneMapping(primaries: 9, transfer: 16, sampleMaximum: 65_536) == nil)
    }

    /// A stated content light level replaces the assumed 1,000 nits, within reason.
    @Test func contentPeakComesFromTheFileWhenSane() throws {
        #expect(try #require(HDRToneMapping(primaries: 9, transfer: 16, contentPeak: 4_000, sampleMaximum: 1023)).contentPeak == 4_000)
        #expect(try #require(HDRToneMapping(primaries: 9, transfer: 16, contentPeak: 50, sampleMaximum: 1023)).contentPeak == 1_000)
        #expect(try #require(HDRToneMapping(primaries: 9, transfer: 16, sampleMaximum: 1023)).contentPeak == 1_000)
        #expect(try #require(HDRToneMapping(primaries: 9, transfer: 18, contentPeak: 4_000, sampleMaximum: 1023)).contentPeak == 1_000)
    }

    /// The corpus's HDR photos (PQ, BT.2020) decode with their highlights rolled off: a
    /// mapping that lost its scale (samples read as 8 or 16 bits instead of 10) or skipped
    /// the roll-off would put large parts of them at white. Measured: 8.5 % of the sunset
    /// (TestHDR.avif, the sun's glare) and 1.2 % of the shop (TestHDR.heic).
    @Test(arguments: ["TestHDR.heic", "TestHDR.avif"])
    func corpusHDRPhotosKeepTheirHighlights(file: String) throws {
        let image = try CodersManager.shared.decode(try Corpus.data(file))
        let bytes = image.pixels.bytes
        var clipped = 0, total = 0
        for index in stride(from: 0, to: bytes.count, by: 4) {
            total += 1
            if max(bytes[index], bytes[index + 1], bytes[index + 2]) == 255 { clipped += 1 }
        }
        #expect(Double(clipped) / Double(total) < 0.12, "\(file): \(clipped) of \(total) pixels at white")
    }
}
