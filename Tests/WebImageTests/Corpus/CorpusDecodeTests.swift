import Foundation
import Testing
@testable import WebImage

/// Every raster image of SDWebImage's test corpus, decoded through `CodersManager.shared`
/// and compared with Pillow's decode (Fixtures/references/references.json, made by
/// make_references.py): format, upright size, frames, loop count, EXIF orientation, a
/// 16×16 grid of RGBA samples and the mean of each channel.
@Suite struct CorpusDecodeTests {
    struct Entry: Decodable, Sendable, CustomTestStringConvertible {
        let file: String
        let format: String
        let lossy: Bool
        let width: Int
        let height: Int
        let frameCount: Int
        let loopCount: Int?
        let orientation: Int?
        /// `grid × grid` RGBA samples, row by row.
        let samples: [[Int]]
        /// Means of r·a/255, g·a/255, b·a/255 and a over the first frame.
        let means: [Double]

        var testDescription: String { file }
    }

    struct ReferenceFile: Decodable {
        let grid: Int
        let entries: [Entry]
    }

    static func loadReferences() throws -> ReferenceFile {
        let url = Corpus.fixtures.appendingPathComponent("references/references.json")
        return try JSONDecoder().decode(ReferenceFile.self, from: Data(contentsOf: url))
    }

    /// Test arguments are evaluated before any test runs, so a missing file yields no
    /// cases here; `referencesCoverTheCorpus` fails loudly in that case.
    static let entries: [Entry] = (try? loadReferences().entries) ?? []

    /// How far a sample (per channel) and a mean may be from Pillow's.
    struct Tolerance {
        let sample: Int
        let mean: Double
    }

    static func tolerance(for entry: Entry) -> Tolerance {
        switch entry.format {
        // Same library (libjpeg-turbo, default IDCT and fancy upsampling) as Pillow; measured
        // identical with the system djpeg. A few levels allow another IDCT or upsampler.
        case "jpeg": Tolerance(sample: 3, mean: 1)
        // libheif/libavif versions and their YUV→RGB and 10→8-bit steps differ from Pillow's
        // bundled ones; the system libraries measured within 3 levels and 0.6 in the mean.
        case "heic", "heif", "avif": Tolerance(sample: 8, mean: 2)
        // Lossy WebP: libwebp's version and upsampler may differ from Pillow's bundled one.
        case "webp" where entry.lossy: Tolerance(sample: 3, mean: 1)
        // 16-bit PNG: reducing to 8 bits may round (libpng's scale_16) where Pillow truncates.
        case "png" where entry.file == "RGBA16PNG.png": Tolerance(sample: 1, mean: 1)
        // PNG, APNG, GIF, lossless WebP: lossless, so exactly Pillow's pixels.
        default: Tolerance(sample: 0, mean: 0.01)
        }
    }

    /// PQ HDR photos: Pillow (libavif, libheif) reads their code values as if they were
    /// sRGB; we tone-map them as browsers do (``HDRToneMapping``). Their pixels are held to
    /// their own fixtures (ColorFixtureTests' `hdr-*`, HDRToneMappingTests); here only that
    /// they are not Pillow's reading.
    static let toneMapped: Set<String> = ["TestHDR.heic", "TestHDR.avif"]

    /// Formats whose coders decode every frame (HEIF sequences are not read by pillow_heif,
    /// so their frame count has no reference).
    static let animatedFormats: Set<String> = ["gif", "png", "webp"]

    @Test func referencesCoverTheCorpus() throws {
        let references = try Self.loadReferences()
        #expect(references.grid == 16)
        let raster: Set<String> = ["jpg", "jpeg", "png", "apng", "gif", "webp", "heic", "heics", "heif", "avif"]
        let files = try FileManager.default.contentsOfDirectory(atPath: Corpus.directory.path)
            .filter { raster.contains(($0 as NSString).pathExtension.lowercased()) }
        #expect(Set(references.entries.map(\.file)) == Set(files))
        #expect(references.entries.allSatisfy { $0.samples.count == 256 && $0.samples.allSatisfy { $0.count == 4 } && $0.means.count == 4 })
    }

    @Test(arguments: entries)
    func decodesLikePillow(entry: Entry) throws {
        let image = try CodersManager.shared.decode(try Corpus.data(entry.file))
        #expect(image.format.rawValue == entry.format)
        #expect(image.size == ImageSize(width: entry.width, height: entry.height))
        #expect(image.orientation.rawValue == (entry.orientation ?? 1))
        if Self.animatedFormats.contains(entry.format) {
            #expect(image.frameCount == entry.frameCount)
            if entry.frameCount > 1 {
                // Pillow reports the file's value; without one (a GIF with no NETSCAPE
                // extension) the animation plays once, as in SDWebImage.
                #expect(image.loopCount == (entry.loopCount ?? 1))
            }
        }
        guard image.size == ImageSize(width: entry.width, height: entry.height) else { return }
        if Self.toneMapped.contains(entry.file) {
            let means = Self.means(of: image.pixels)
            #expect((0..<3).contains { abs(means[$0] - entry.means[$0]) > 5 }, "\(entry.file) reads like Pillow's code values: \(means)")
            return
        }
        let tolerance = Self.tolerance(for: entry)
        let pixels = image.pixels
        var worst = 0
        var worstAt = ""
        for (index, expected) in entry.samples.enumerated() {
            let x = (2 * (index % 16) + 1) * entry.width / 32   // floor((i + 0.5) · W / 16)
            let y = (2 * (index / 16) + 1) * entry.height / 32
            let p = pixels[pixel: x, y]
            let actual = [Int(p.red), Int(p.green), Int(p.blue), Int(p.alpha)]
            // The colour under a fully transparent pixel is not part of the image.
            let channels = actual[3] == 0 && expected[3] == 0 ? 3..<4 : 0..<4
            for c in channels where abs(actual[c] - expected[c]) > worst {
                worst = abs(actual[c] - expected[c])
                worstAt = "(\(x), \(y)): \(actual) vs \(expected)"
            }
        }
        #expect(worst <= tolerance.sample, "\(entry.file): largest sample difference \(worst) at \(worstAt)")
        let means = Self.means(of: pixels)
        for c in 0..<4 {
            #expect(abs(means[c] - entry.means[c]) <= tolerance.mean, "\(entry.file) channel \(c): mean \(means[c]) vs \(entry.means[c])")
        }
    }

    /// The reference's means: colour premultiplied by alpha, alpha plain.
    static func means(of pixels: PixelBuffer) -> [Double] {
        var sums = [Int](repeating: 0, count: 4)
        pixels.bytes.withUnsafeBufferPointer { p in
            var r = 0, g = 0, b = 0, a = 0
            var i = 0
            while i < p.count {
                let alpha = Int(p[i + 3])
                r += Int(p[i]) * alpha
                g += Int(p[i + 1]) * alpha
                b += Int(p[i + 2]) * alpha
                a += alpha
                i += 4
            }
            sums = [r, g, b, a]
        }
        let count = Double(pixels.width * pixels.height)
        return [Double(sums[0]) / 255 / count, Double(sums[1]) / 255 / count, Double(sums[2]) / 255 / count, Double(sums[3]) / count]
    }
}
