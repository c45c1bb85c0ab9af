import Foundation
import Testing
@testable import WebImage

/// One file's reference decode by Pillow (see Fixtures/png/make_png_fixtures.py and
/// Fixtures/bmp/make_bmp_fixtures.py, which write the same format).
struct PNGReference: Decodable {
    struct Frame: Decodable {
        var fnv1a64: String
        var durationMilliseconds: Double
        /// `[x, y, r, g, b, a]` rows.
        var samples: [[Int]]
    }

    var width: Int
    var height: Int
    var loop: Int
    var orientation: Int
    var frames: [Frame]

    static let all = load(folder: "png")

    /// The references in `Fixtures/<folder>/references.json`, or none when it is missing.
    static func load(folder: String) -> [String: PNGReference] {
        let url = Corpus.fixtures.appendingPathComponent(folder + "/references.json")
        guard let data = try? Data(contentsOf: url),
              let decoded = try? JSONDecoder().decode([String: PNGReference].self, from: data)
        else { return [:] }
        return decoded
    }

    /// The bytes of a reference's file: `corpus/` names come from SDWebImage's images.
    static func data(_ name: String, folder: String = "png") throws -> Data {
        if name.hasPrefix("corpus/") { return try Corpus.data(String(name.dropFirst("corpus/".count))) }
        return try Data(contentsOf: Corpus.fixtures.appendingPathComponent(folder + "/" + name))
    }

    /// FNV-1a 64 of the bytes, as the python script computes it.
    static func fnv1a64(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        bytes.withUnsafeBufferPointer { for byte in $0 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 } }
        return String(format: "%016llx", hash)
    }

    /// Checks `image` against this reference pixel for pixel (with orientation not applied).
    func expectMatches(_ image: Image, _ name: String) {
        #expect(image.size == ImageSize(width: width, height: height), "\(name) size")
        #expect(image.frameCount == frames.count, "\(name) frame count")
        for (index, (frame, expected)) in zip(image.frames, frames).enumerated() {
            for sample in expected.samples {
                let p = frame.pixels[pixel: sample[0], sample[1]]
                #expect([Int(p.red), Int(p.green), Int(p.blue), Int(p.alpha)] == Array(sample[2...]),
                        "\(name) frame \(index) pixel (\(sample[0]), \(sample[1]))")
            }
            #expect(PNGReference.fnv1a64(frame.pixels.bytes) == expected.fnv1a64, "\(name) frame \(index) bytes")
        }
    }
}

@Suite struct PNGCoderTests {
    let coder = PNGCoder()

    static let matrixNames = PNGReference.all.keys.filter { $0.hasPrefix("matrix/") }.sorted()
    static let stillCorpus = ["corpus/TestImage.png", "corpus/IndexedPNG.png", "corpus/RGBA16PNG.png", "corpus/TestEXIF.png"]

    @Test func referencesAreBundled() {
        #expect(PNGReference.all.count >= 60)
        #expect(PNGCoderTests.matrixNames.count == 52)
    }

    @Test(arguments: stillCorpus)
    func decodesCorpusStillImagesExactlyLikePillow(_ name: String) throws {
        let reference = try #require(PNGReference.all[name])
        let image = try coder.decode(try PNGReference.data(name), options: ImageCoderOptions())
        reference.expectMatches(image, name)
        #expect(image.format == .png)
        #expect(!image.isAnimated)
        #expect(image.loopCount == 1)
        #expect(!image.isThumbnail)
    }

    @Test(arguments: matrixNames)
    func decodesEveryColourTypeBitDepthAndInterlaceExactlyLikePillow(_ name: String) throws {
        let reference = try #require(PNGReference.all[name])
        let image = try coder.decode(try PNGReference.data(name), options: ImageCoderOptions())
        reference.expectMatches(image, name)
        let declaresAlpha = name.contains("ct4") || name.contains("ct6") || name.contains("trns")
        #expect(image.hasAlpha == declaresAlpha)
    }

    @Test func interlacedAndPlainMatrixFilesDecodeToTheSamePixels() throws {
        for name in PNGCoderTests.matrixNames where name.hasSuffix("_adam7.png") {
            let plain = name.replacingOccurrences(of: "_adam7", with: "")
            let a = try coder.decode(try PNGReference.data(name), options: ImageCoderOptions())
            let b = try coder.decode(try PNGReference.data(plain), options: ImageCoderOptions())
            let same = a.pixels == b.pixels
            #expect(same, "\(name)")
        }
    }

    @Test func reportsAlphaForTheCorpusFiles() throws {
        #expect(try coder.decode(Corpus.data("TestImage.png"), options: ImageCoderOptions()).hasAlpha)
        #expect(try coder.decode(Corpus.data("IndexedPNG.png"), options: ImageCoderOptions()).hasAlpha)
        #expect(try coder.decode(Corpus.data("RGBA16PNG.png"), options: ImageCoderOptions()).hasAlpha)
        #expect(try !coder.decode(Corpus.data("TestEXIF.png"), options: ImageCoderOptions()).hasAlpha)
    }

    @Test func testEXIFHasNoEXIFChunkSoStaysUp() throws {
        // TestEXIF.png carries only XMP (no eXIf chunk): browsers and we show it as stored.
        let image = try coder.decode(Corpus.data("TestEXIF.png"), options: ImageCoderOptions())
        #expect(image.orientation == .up)
        #expect(image.size == ImageSize(width: 150, height: 200))
    }

    @Test func appliesTheEXIfChunkOrientation() throws {
        let data = try PNGReference.data("exif_orientation6.png")
        let reference = try #require(PNGReference.all["exif_orientation6.png"])
        #expect(reference.orientation == 6)

        var asStored = ImageCoderOptions()
        asStored.applyOrientation = false
        let stored = try coder.decode(data, options: asStored)
        reference.expectMatches(stored, "exif_orientation6.png")
        #expect(stored.orientation == .right)

        let upright = try coder.decode(data, options: ImageCoderOptions())
        #expect(upright.orientation == .right)
        #expect(upright.size == ImageSize(width: 5, height: 8))
        #expect(upright.pixels == ImageOrientation.right.apply(to: stored.pixels))
        // The stored top-left (red) goes to the top-right after a clockwise turn.
        #expect(upright.pixels[pixel: 4, 0] == RGBAColor(red: 255, green: 0, blue: 0))
    }

    @Test func decodesAThumbnailThatFitsTheBox() throws {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 100, height: 100)
        options.scaleFactor = 2
        let image = try coder.decode(Corpus.data("IndexedPNG.png"), options: options)
        #expect(image.size == ImageSize(width: 100, height: 18))
        #expect(image.isThumbnail)
        #expect(image.scale == 2)
    }

    @Test func scaleDownLimitBytesCapsThePixels() throws {
        var options = ImageCoderOptions()
        options.scaleDownLimitBytes = 300 * 300
        let image = try coder.decode(Corpus.data("TestImage.png"), options: options)
        #expect(image.size.pixelCount * 4 <= 300 * 300)
        #expect(image.isThumbnail)
    }

    @Test func pixelLimitRefusesLargeImages() throws {
        var options = ImageCoderOptions()
        options.pixelLimit = 300 * 300 - 1
        #expect(throws: WebImageError.imageTooLarge(width: 300, height: 300, limit: 300 * 300 - 1)) {
            try coder.decode(Corpus.data("TestImage.png"), options: options)
        }
    }

    @Test func claimsOnlyPNGData() throws {
        #expect(try coder.canDecode(Corpus.data("TestImage.png")))
        #expect(!coder.canDecode(Data("GIF89a".utf8)))
        #expect(coder.canEncode(to: .png))
        #expect(!coder.canEncode(to: .jpeg))
    }
}
