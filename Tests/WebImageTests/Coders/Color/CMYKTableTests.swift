import CLCMS
import Foundation
import Testing
@testable import WebImage

/// ``ColorTransform/CMYKTable``, the sampled CMYK conversion, against Little CMS's own
/// 8-bit transform (`cmsDoTransform`, the same profile, intent and polarity) over every
/// combination of 18 levels per ink and a pseudo-random spread of 200,000 more. Little CMS
/// also interpolates a precomputed 17-node grid for 8-bit CMYK, so the two agree almost
/// everywhere: at least 99.5 % of channel values within one level (99.7 % on Coated
/// FOGRA39, all of them on the fixtures' printer model), a mean difference
/// under a tenth of a level. A few colours at the edge of sRGB's gamut (one channel
/// clipped to 0 at some corners of their cell) differ by up to 7 levels on Coated FOGRA39:
/// Little CMS's optimised pipeline evaluates that profile slightly differently there.
@Suite struct CMYKTableTests {
    /// The default profile (a colprof fit to press measurements) and the fixtures'
    /// printer model (a lut16 profile written by make-color-fixtures.py).
    static let profiles = ["Coated FOGRA39", "cmyk-lut.icc"]

    static func profile(_ name: String) throws -> ColorProfile {
        name == "Coated FOGRA39" ? .coatedFOGRA39 : try ColorProfile(iccData: ColorFixtureTests.fixture(name))
    }

    /// Every combination of 18 levels per ink (0, 15, ..., 255: between the table's nodes
    /// as often as on them), then a deterministic pseudo-random spread.
    static func inks() -> [UInt8] {
        var pixels: [UInt8] = []
        let levels = Array(stride(from: 0, through: 255, by: 15)).map(UInt8.init)
        for c in levels { for m in levels { for y in levels { for k in levels { pixels += [c, m, y, k] } } } }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200_000 * 4 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        return pixels
    }

    static func littleCMS(_ profile: ColorProfile, inverted: Bool, _ pixels: [UInt8]) throws -> [UInt8] {
        let source = try #require(profile.data.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        defer { cmsCloseProfile(source) }
        let sRGB = try #require(cmsCreate_sRGBProfile())
        defer { cmsCloseProfile(sRGB) }
        let transform = try #require(cmsCreateTransform(
            source, inverted ? clcms_type_cmyk_8_rev : clcms_type_cmyk_8, sRGB, clcms_type_rgba_8,
            cmsUInt32Number(INTENT_PERCEPTUAL), cmsUInt32Number(cmsFLAGS_NOCACHE)))
        defer { cmsDeleteTransform(transform) }
        var converted = [UInt8](repeating: 0, count: pixels.count)
        cmsDoTransform(transform, pixels, &converted, cmsUInt32Number(pixels.count / 4))
        return converted
    }

    @Test(arguments: profiles, [false, true])
    func agreesWithLittleCMS(profile name: String, inverted: Bool) throws {
        let profile = try Self.profile(name)
        let transform = try ColorTransform(profile: profile, input: inverted ? .invertedCMYK : .cmyk)
        let inks = Self.inks()
        var ours = inks
        ours.withUnsafeMutableBufferPointer { transform.convert($0) }
        let reference = try Self.littleCMS(profile, inverted: inverted, inks)
        var worst = 0, worstPixel = 0, total = 0, beyondOne = 0, opaque = true
        for pixel in stride(from: 0, to: inks.count, by: 4) {
            opaque = opaque && ours[pixel + 3] == 255
            for channel in 0..<3 {
                let difference = abs(Int(ours[pixel + channel]) - Int(reference[pixel + channel]))
                total += difference
                if difference > 1 { beyondOne += 1 }
                if difference > worst { (worst, worstPixel) = (difference, pixel) }
            }
        }
        let values = inks.count / 4 * 3
        let mean = Double(total) / Double(values)
        print("CMYK table, \(name)\(inverted ? " inverted" : ""): worst \(worst), mean \(mean), beyond one level \(beyondOne) of \(values)")
        let at = worstPixel
        #expect(opaque)
        #expect(worst <= 7, "\(name): \(Array(inks[at..<at + 4])) became \(Array(ours[at..<at + 3])), Little CMS says \(Array(reference[at..<at + 3]))")
        #expect(mean < 0.1)
        #expect(beyondOne * 200 <= values)
    }

    /// The nodes themselves come back as Little CMS gave them (rounded from 16 bits).
    @Test func nodesAreLittleCMSsOwnValues() throws {
        let transform = try ColorTransform(profile: .coatedFOGRA39, input: .cmyk)
        var nodes: [UInt8] = []
        for c in stride(from: 0, through: 255, by: 51) { for k in stride(from: 0, through: 255, by: 85) {
            nodes += [UInt8(c), UInt8(255 - c), UInt8(c / 2), UInt8(k)]
        } }
        var ours = nodes
        ours.withUnsafeMutableBufferPointer { transform.convert($0) }
        let reference = try Self.littleCMS(.coatedFOGRA39, inverted: false, nodes)
        for index in nodes.indices where index % 4 != 3 {
            #expect(abs(Int(ours[index]) - Int(reference[index])) <= 1, "\(Array(nodes[index / 4 * 4..<index / 4 * 4 + 4]))")
        }
    }
}
