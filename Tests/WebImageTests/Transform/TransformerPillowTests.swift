import Foundation
import Testing
@testable import WebImage

/// Blur and rotation against Pillow 13 (Fixtures/transform, made by
/// make_transform_fixtures.py from a 48×40 test pattern).
@Suite("Transformers against Pillow")
struct TransformerPillowTests {
    static let width = 48, height = 40

    func source(_ name: String = "source.rgba") throws -> PixelBuffer {
        try TransformTestSupport.fixture(name, width: Self.width, height: Self.height)
    }

    /// Pillow's GaussianBlur is the same three extended boxes but rounds to 8 bits after
    /// every pass; we keep 1/256 of a level between passes. Tolerance: every channel within
    /// 1 level, mean under 0.2 (measured: max 1, mean 0.08 and 0.10).
    @Test(arguments: [1.5, 6.0])
    func opaqueBlurMatchesPillowGaussianBlur(sigma: Double) throws {
        let ours = try BlurTransformer(radius: sigma).transform(pixels: source())
        let pillow = try TransformTestSupport.fixture("blur_\(sigma).rgba", width: Self.width, height: Self.height)
        let diff = TransformTestSupport.difference(ours, pillow)
        #expect(diff.max <= 1, "max \(diff.max)")
        #expect(diff.mean < 0.2, "mean \(diff.mean)")
    }

    /// Against Pillow blurring premultiplied ('RGBa') pixels, compared premultiplied: both
    /// sides store straight alpha, and dividing by a small alpha magnifies either side's
    /// rounding (Pillow rounds premultiplied levels after each of its six passes).
    /// Tolerance: alpha within 2; premultiplied colour within 3, mean under 0.5 (measured:
    /// alpha 2 and 1, colour 3 and 2, mean 0.42 and 0.23).
    @Test(arguments: [1.5, 6.0])
    func translucentBlurMatchesPillowOnPremultipliedPixels(sigma: Double) throws {
        let ours = try BlurTransformer(radius: sigma).transform(pixels: source("alpha.rgba"))
        let pillow = try TransformTestSupport.fixture("blur_alpha_\(sigma).rgba", width: Self.width, height: Self.height)
        let alpha = TransformTestSupport.difference(ours, pillow, channels: 3...3)
        #expect(alpha.max <= 2, "alpha max \(alpha.max)")
        let colour = TransformTestSupport.difference(Self.premultiplied(ours), Self.premultiplied(pillow), channels: 0...2)
        #expect(colour.max <= 3, "colour max \(colour.max)")
        #expect(colour.mean < 0.5, "colour mean \(colour.mean)")
    }

    static func premultiplied(_ pixels: PixelBuffer) -> PixelBuffer {
        var out = pixels
        for i in stride(from: 0, to: out.bytes.count, by: 4) {
            let a = Int(out.bytes[i + 3])
            for c in 0..<3 { out.bytes[i + c] = UInt8((Int(out.bytes[i + c]) * a + 127) / 255) }
        }
        return out
    }

    /// Pillow's `rotate(d, BICUBIC, expand=True)`: the same canvas size, and, with Pillow's
    /// cubic (a = −1), the same pixels wherever the 4×4 footprint lies inside the source
    /// (at the edges Pillow repeats edge pixels and cuts hard; we fade to transparent).
    /// Tolerance: every channel within 1 level (Pillow truncates where we round; measured
    /// mean 0.3). The
    /// transformer's own Catmull-Rom (a = −0.5) rings less at hard edges, so against Pillow
    /// it is held to a mean under 2 levels (measured 1.3; up to 27 at the pattern's edges).
    @Test(arguments: [30.0, 135.0])
    func rotationMatchesPillowRotateWithExpand(degrees: Double) throws {
        let references = try JSONSerialization.jsonObject(
            with: Data(contentsOf: Corpus.fixtures.appendingPathComponent("transform/references.json"))
        ) as? [String: Any]
        let entry = try #require((references?["rotate"] as? [[String: Any]])?.first { $0["degrees"] as? Double == degrees })
        let size = try ImageSize(width: #require(entry["width"] as? Int), height: #require(entry["height"] as? Int))
        let transformer = RotateTransformer(degrees: degrees, fitSize: true)
        let ours = try transformer.transform(pixels: source())
        #expect(ours.size == size)
        let pillow = try TransformTestSupport.fixture("rotate_\(Int(degrees)).rgba", width: size.width, height: size.height)
        let angle = transformer.angle
        let interior: (Int, Int) -> Bool = { x, y in
            // Where the output pixel's centre lands in the source, in pixel-index units.
            let dx = Double(x) + 0.5 - Double(size.width) / 2, dy = Double(y) + 0.5 - Double(size.height) / 2
            let sx = dx * cos(angle) - dy * sin(angle) + Double(Self.width) / 2 - 0.5
            let sy = dx * sin(angle) + dy * cos(angle) + Double(Self.height) / 2 - 0.5
            return sx >= 1 && sy >= 1 && sx <= Double(Self.width) - 3 && sy <= Double(Self.height) - 3
        }
        let pillowKernel = RotateTransformer.resample(try source(), angle: angle, canvas: size, cubic: -1)
        let exact = TransformTestSupport.difference(pillowKernel, pillow, include: interior)
        #expect(exact.count > 4000)
        #expect(exact.max <= 1, "max \(exact.max)")
        let catmullRom = TransformTestSupport.difference(ours, pillow, include: interior)
        #expect(catmullRom.mean < 2, "mean \(catmullRom.mean)")
        // Outside the rotated source both are transparent.
        #expect(ours[pixel: 0, 0].alpha == 0 && pillow[pixel: 0, 0].alpha == 0)
    }
}
