import CLCMS
import Foundation
import Testing
@testable import WebImage

/// ``ColorTransform/MatrixShaper``, our fixed-point table kernel for matrix/shaper profiles,
/// against Little CMS's own transform (`cmsDoTransform`, the same intent and profiles) over
/// a grid of colours: every channel value agrees within one 8-bit level.
@Suite struct MatrixShaperTests {
    /// The profiles of the colour fixtures that are matrix/shaper RGB, and BT.2020 (the
    /// widest gamut a file's `nclx` names), whose matrix reaches furthest out of sRGB.
    static let sources = ["display-p3.jpg", "adobe-rgb.jpg", "prophoto.jpg", "gama-chrm.png", "nclx BT.2020"]

    static func profile(_ source: String) throws -> ColorProfile {
        if source == "nclx BT.2020" { return try #require(ColorProfile.cicp(primaries: 9, transfer: 13)) }
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        return try #require(try CodersManager.shared.decode(try ColorFixtureTests.fixture(source), options: keep).colorProfile)
    }

    /// Every combination of 52 levels per channel (0, 5, ..., 255), then each channel's
    /// full ramp alone and the grey ramp; alpha varies so its copying is checked too.
    static func grid() -> [UInt8] {
        var pixels: [UInt8] = []
        let levels = Array(stride(from: 0, through: 255, by: 5))
        for r in levels { for g in levels { for b in levels { pixels += [UInt8(r), UInt8(g), UInt8(b), UInt8((r + 3 * g + 7 * b) & 255)] } } }
        for value in 0...255 {
            let v = UInt8(value)
            pixels += [v, 0, 0, 255, 0, v, 0, 255, 0, 0, v, 255, v, v, v, 0]
        }
        return pixels
    }

    /// Little CMS converting `pixels` from `profile` to its built-in sRGB, perceptual, RGBA.
    static func littleCMS(_ profile: ColorProfile, _ pixels: [UInt8]) throws -> [UInt8] {
        let source = try #require(profile.data.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        defer { cmsCloseProfile(source) }
        let sRGB = try #require(cmsCreate_sRGBProfile())
        defer { cmsCloseProfile(sRGB) }
        let transform = try #require(cmsCreateTransform(
            source, clcms_type_rgba_8, sRGB, clcms_type_rgba_8, cmsUInt32Number(INTENT_PERCEPTUAL),
            cmsUInt32Number(cmsFLAGS_NOCACHE) | cmsUInt32Number(cmsFLAGS_COPY_ALPHA)))
        defer { cmsDeleteTransform(transform) }
        var converted = [UInt8](repeating: 0, count: pixels.count)
        cmsDoTransform(transform, pixels, &converted, cmsUInt32Number(pixels.count / 4))
        return converted
    }

    @Test(arguments: sources)
    func agreesWithLittleCMSWithinOneLevel(source: String) throws {
        let profile = try Self.profile(source)
        let transform = try ColorTransform(profile: profile, input: .rgba)
        #expect(transform.usesMatrixShaper, "\(source) is not converted by the kernel under test")
        let grid = Self.grid()
        var ours = grid
        ours.withUnsafeMutableBufferPointer { transform.convert($0) }
        let reference = try Self.littleCMS(profile, grid)
        var worst = 0, worstIndex = 0, changed = 0
        for index in grid.indices {
            let difference = abs(Int(ours[index]) - Int(reference[index]))
            if difference > worst { (worst, worstIndex) = (difference, index) }
            if ours[index] != grid[index] { changed += 1 }
        }
        let pixel = worstIndex / 4 * 4
        #expect(worst <= 1, "\(source): \(Array(grid[pixel..<pixel + 4])) became \(Array(ours[pixel..<pixel + 4])), Little CMS says \(Array(reference[pixel..<pixel + 4]))")
        // The conversion did something: a wide-gamut source moves most colours.
        #expect(changed > grid.count / 4, "\(source)")
    }

    /// Above ``ColorTransform/parallelPixelCount`` the image converts in parts on several
    /// cores, and the JPEG decoder converts its bands while it decodes: both must give what
    /// one pass gives, up to the last pixel.
    @Test func partsAndBandsMatchOnePass() throws {
        let transform = try ColorTransform(profile: try Self.profile("display-p3.jpg"), input: .rgba)
        let grid = Self.grid()
        let count = ColorTransform.parallelPixelCount + 12_345
        var large = [UInt8](repeating: 0, count: count * 4)
        for index in large.indices { large[index] = grid[index % grid.count] }
        var inParts = large
        inParts.withUnsafeMutableBufferPointer { transform.convert($0) }
        var inBands = large
        inBands.withUnsafeMutableBufferPointer { buffer in
            let bands = ColorBandConverter(transform: transform, pixelCount: count)
            defer { bands.finish() }
            let band = 64 * 1000 * 4
            for start in stride(from: 0, to: buffer.count, by: band) {
                bands.convert(UnsafeMutableBufferPointer(rebasing: buffer[start..<min(buffer.count, start + band)]))
            }
        }
        var onePass = grid
        onePass.withUnsafeMutableBufferPointer { transform.convert($0) }
        let expected = (0..<large.count).map { onePass[$0 % grid.count] }
        #expect(inParts == expected)
        #expect(inBands == expected)
    }

    /// A JPEG above ``ColorBandConverter/concurrentPixelCount`` converts its bands on another
    /// thread while libjpeg decodes: the result is the kept pixels converted in one pass.
    @Test func aLargeJPEGConvertsItsBandsAsOnePassWould() throws {
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        let small = try JPEGCoder().decode(try ColorFixtureTests.fixture("display-p3.jpg"), options: keep)
        let profile = try #require(small.colorProfile)
        // The 96 x 64 fixture tiled to 1248 x 896 pixels (1.1 MP).
        let width = small.size.width * 13, height = small.size.height * 14
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let from = ((y % small.size.height) * small.size.width + x % small.size.width) * 4
                for c in 0..<4 { bytes[(y * width + x) * 4 + c] = small.pixels.bytes[from + c] }
            }
        }
        #expect(width * height >= ColorBandConverter.concurrentPixelCount)
        let large = Image(frames: [ImageFrame(pixels: try PixelBuffer(width: width, height: height, bytes: bytes))],
                          hasAlpha: false, colorProfile: profile)
        var policy = ImageCoderOptions()
        policy.metadataPolicy = .colorProfileOnly
        let jpeg = try JPEGCoder().encode(large, as: .jpeg, options: policy)
        let converted = try JPEGCoder().decode(jpeg, options: ImageCoderOptions())
        var kept = try JPEGCoder().decode(jpeg, options: keep).pixels
        #expect(kept != converted.pixels)
        let transform = try ColorTransform(profile: profile, input: .rgba)
        kept.bytes.withUnsafeMutableBufferPointer { transform.convert($0) }
        #expect(converted.colorProfile == nil)
        #expect(converted.pixels == kept)
    }
}
