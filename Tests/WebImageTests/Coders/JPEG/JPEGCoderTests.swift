import Foundation
import Testing
@testable import WebImage

/// Decoding real JPEGs, checked against Pillow's decode of the same files
/// (Fixtures/jpeg/references.json, made by Fixtures/jpeg/make_fixtures.py).
///
/// Pillow uses libjpeg-turbo with the same accurate IDCT and fancy upsampling, so the
/// pixels should agree almost exactly: we allow a mean absolute difference of 1.5 and a
/// worst channel difference of 12 over the sample grid.
///
/// Pillow's plain decode leaves an embedded profile unapplied, so the files that carry one
/// (TestICCProfile.jpg, TestJFIF.jpg's Display P3) are decoded with
/// ``ImageCoderOptions/keepsColorProfile``: this suite checks libjpeg's pixels, and the
/// conversion to sRGB is checked by ColorFixtureTests and CorpusDecodeTests.
@Suite struct JPEGCoderTests {
    let coder = JPEGCoder()

    /// Options that keep the stored pixels, as Pillow's decode does.
    static var storedPixels: ImageCoderOptions {
        var options = ImageCoderOptions()
        options.keepsColorProfile = true
        return options
    }

    @Test(arguments: ["TestImage.jpg", "TestImageLarge.jpg", "MonochromeTestImage.jpg", "TestICCProfile.jpg", "TestHDR.jpeg"])
    func decodesCorpusFileLikePillow(name: String) throws {
        let reference = try #require(try Self.references().corpus[name])
        let image = try coder.decode(try Corpus.data(name), options: Self.storedPixels)
        #expect(image.size == ImageSize(width: reference.width, height: reference.height))
        #expect(image.format == .jpeg)
        #expect(!image.hasAlpha)
        #expect(image.loopCount == 1)
        #expect(!image.isThumbnail)
        let difference = Self.compare(image.pixels, with: reference)
        #expect(difference.mean <= 1.5, "mean difference \(difference.mean)")
        #expect(difference.max <= 12, "max difference \(difference.max)")
    }

    @Test func grayscaleDecodesToOpaqueGrayRGBA() throws {
        let image = try coder.decode(try Corpus.data("MonochromeTestImage.jpg"), options: ImageCoderOptions())
        let p = image.pixels
        var colourful = 0
        for index in stride(from: 0, to: p.bytes.count, by: 4) {
            #expect(p.bytes[index + 3] == 255)
            if p.bytes[index] != p.bytes[index + 1] || p.bytes[index] != p.bytes[index + 2] { colourful += 1 }
        }
        #expect(colourful == 0)
    }

    @Test func turnsTestJFIFUprightAndReportsOrientationDown() throws {
        let reference = try #require(try Self.references().corpus["TestJFIF.jpg"])
        let image = try coder.decode(try Corpus.data("TestJFIF.jpg"), options: Self.storedPixels)
        #expect(image.orientation == .down)
        #expect(image.colorProfile?.name == "Display P3")
        #expect(image.size == ImageSize(width: 4032, height: 3024))
        let difference = Self.compare(image.pixels, with: reference)
        #expect(difference.mean <= 1.5, "mean difference \(difference.mean)")
        #expect(difference.max <= 12, "max difference \(difference.max)")
    }

    @Test func keepsTestJFIFAsStoredWithoutApplyOrientation() throws {
        let reference = try #require(try Self.references().corpus["TestJFIF.jpg"]?.stored)
        var options = Self.storedPixels
        options.applyOrientation = false
        let image = try coder.decode(try Corpus.data("TestJFIF.jpg"), options: options)
        #expect(image.orientation == .down)
        let difference = Self.compare(image.pixels, with: reference)
        #expect(difference.mean <= 1.5, "mean difference \(difference.mean)")
        #expect(difference.max <= 12, "max difference \(difference.max)")
    }

    @Test func thumbnailUsesDCTScalingThenResizesExactly() throws {
        let data = try Corpus.data("TestImageLarge.jpg")
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 400, height: 300)
        let plan = try coder.plan(for: data, options: options)
        // 1/8 (657 × 432) would cover 400 × 263; 1/4 leaves the resample a factor of two.
        #expect(plan.scaleNumerator == 2)
        #expect(plan.scaledSize == ImageSize(width: 1313, height: 863))
        #expect(plan.target == ImageSize(width: 400, height: 263))

        let image = try coder.decode(data, options: options)
        #expect(image.size == ImageSize(width: 400, height: 263))
        #expect(image.isThumbnail)
        // Pillow doing the same (libjpeg's 1/4 scale, then Lanczos) agrees closely...
        let references = try Self.references()
        let same = Self.compare(image.pixels, with: references.thumbnail)
        #expect(same.mean <= 1.5, "mean difference \(same.mean)")
        // ...and so does Lanczos from the full decode: 1.6 levels on average, where a
        // shrink straight to 1/8 with no margin came to 4.4 (its 8 × 8 box averages).
        let full = Self.compare(image.pixels, with: references.thumbnailFromFull)
        #expect(full.mean <= 2.5, "mean difference \(full.mean)")
    }

    /// A scale-down limit bounds memory: a thumbnail's doubled size that would break it is
    /// not asked of the DCT shrink, which then only covers the result (5250 × 3450 into a
    /// 1,000 × 1,000 box is 1000 × 657; doubled, 2.6 million pixels, over a 2-megapixel
    /// limit's; 1000 × 657 itself is within it).
    @Test func thumbnailMarginGivesWayToAScaleDownLimit() throws {
        let data = try Corpus.data("TestImageLarge.jpg")
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 1000, height: 1000)
        #expect(try coder.plan(for: data, options: options).scaleNumerator == 4)
        options.scaleDownLimitBytes = 8_000_000
        let plan = try coder.plan(for: data, options: options)
        #expect(plan.target == ImageSize(width: 1000, height: 657))
        #expect(plan.scaleNumerator == 2)
        // Without a thumbnail box, a scale-down limit alone never asked for a margin.
        options.thumbnailPixelSize = nil
        options.scaleDownLimitBytes = 4_000_000
        #expect(try coder.plan(for: data, options: options).scaleNumerator == 2)
    }

    /// A reduced scale is taken only when it makes the image smaller: below 8 pixels the
    /// rounded-up sides of 7/8 are the full size again, and its coarser IDCT would cost
    /// accuracy for nothing (Pillow's app13.jpg, 4×4, came out up to 73 levels off).
    @Test func aScaleThatSavesNoPixelsIsNotTaken() throws {
        let tiny = ImageSize(width: 4, height: 4)
        #expect(JPEGCoder.scaleNumerator(for: tiny, covering: tiny) == 8)
        #expect(JPEGCoder.scaleNumerator(for: ImageSize(width: 7, height: 7), covering: ImageSize(width: 7, height: 7)) == 8)
        #expect(JPEGCoder.scaleNumerator(for: ImageSize(width: 16, height: 16), covering: ImageSize(width: 14, height: 14)) == 7)
        // 4×100 into 4×50: 7/8 keeps the width but saves rows, so it is taken.
        #expect(JPEGCoder.scaleNumerator(for: ImageSize(width: 4, height: 100), covering: ImageSize(width: 4, height: 50)) == 7)

        let pattern = PixelBuffer(width: 4, height: 4, filling: .white)
        let data = try coder.encode(Image(frames: [ImageFrame(pixels: pattern)]), as: .jpeg, options: ImageCoderOptions())
        #expect(try coder.plan(for: data, options: ImageCoderOptions()).scaleNumerator == 8)
    }

    @Test func thumbnailScaleIsChosenInStoredOrientation() throws {
        // Stored 32x48, shown 48x32 (orientation 6). A 12x8 box, doubled for the resample,
        // needs 16x24 stored: 4/8. Taken upright (24x16), it would need 6/8 (24x36).
        let data = try Self.fixture("orientation-6.jpg")
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 12, height: 8)
        let plan = try coder.plan(for: data, options: options)
        #expect(plan.scaleNumerator == 4)
        #expect(plan.scaledSize == ImageSize(width: 16, height: 24))
        let image = try coder.decode(data, options: options)
        #expect(image.size == ImageSize(width: 12, height: 8))
        #expect(image.isThumbnail)
        // Top-left block of the upright pattern (4x4 pixels here) is red.
        let corner = image.pixels[pixel: 1, 1]
        #expect(corner.red > 180 && corner.green < 80 && corner.blue < 80, "\(corner)")
    }

    @Test func scaleDownLimitDecodesSmallerThroughDCTScaling() throws {
        let data = try Corpus.data("TestImageLarge.jpg")
        var options = ImageCoderOptions()
        options.scaleDownLimitBytes = 4_000_000
        let plan = try coder.plan(for: data, options: options)
        #expect(plan.scaleNumerator == 2)
        let image = try coder.decode(data, options: options)
        #expect(image.size.pixelCount <= 1_000_000)
        #expect(image.size.pixelCount > 950_000)
        #expect(abs(Double(image.size.width) / Double(image.size.height) - 5250.0 / 3450.0) < 0.01)
        #expect(image.isThumbnail)
    }

    @Test func smallImageIsNotScaledUpByAThumbnailBox() throws {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 1000, height: 1000)
        let image = try coder.decode(try Corpus.data("TestImage.jpg"), options: options)
        #expect(image.size == ImageSize(width: 80, height: 60))
        #expect(!image.isThumbnail)
    }

    /// Pillow's naive CMYK conversion, which a `nil` default CMYK profile asks for (the
    /// default profile's own conversion is ColorFixtureTests' cmyk.jpg).
    static var naiveCMYK: ImageCoderOptions {
        var options = ImageCoderOptions()
        options.defaultCMYKProfile = nil
        return options
    }

    @Test func adobeCMYKMatchesPillow() throws {
        let image = try coder.decode(try Self.fixture("cmyk-adobe.jpg"), options: Self.naiveCMYK)
        let reference = try #require(try Self.references().cmyk["cmyk-adobe.jpg"])
        #expect(Self.maxDifference(image.pixels, rgb: reference) == 0)
    }

    @Test func cmykWithoutAdobeMarkerIsReadWithPlainPolarity() throws {
        let image = try coder.decode(try Self.fixture("cmyk-plain.jpg"), options: Self.naiveCMYK)
        let reference = try #require(try Self.references().cmyk["cmyk-plain.jpg"])
        #expect(Self.maxDifference(image.pixels, rgb: reference) == 0)
    }

    @Test func scaleSettlesOnSmallestNumeratorCoveringBothSides() {
        let source = ImageSize(width: 800, height: 600)
        #expect(JPEGCoder.scaleNumerator(for: source, covering: ImageSize(width: 100, height: 75)) == 1)
        #expect(JPEGCoder.scaleNumerator(for: source, covering: ImageSize(width: 101, height: 75)) == 2)
        #expect(JPEGCoder.scaleNumerator(for: source, covering: ImageSize(width: 100, height: 300)) == 4)
        #expect(JPEGCoder.scaleNumerator(for: source, covering: ImageSize(width: 799, height: 600)) == 8)
        #expect(JPEGCoder.scaledSize(ImageSize(width: 5250, height: 3450), numerator: 3) == ImageSize(width: 1969, height: 1294))
        // imgproxy's shrinks (the image server's): 8, 4 or 2 only, so 3/8 becomes 4/8.
        #expect(JPEGCoder.scaleNumerator(for: source, covering: ImageSize(width: 250, height: 190)) == 3)
        #expect(JPEGCoder.scaleNumerator(for: source, covering: ImageSize(width: 250, height: 190), powersOfTwoOnly: true) == 4)
        #expect(JPEGCoder.scaleNumerator(for: source, covering: ImageSize(width: 401, height: 300), powersOfTwoOnly: true) == 8)
        #expect(JPEGCoder.scaleNumerator(for: source, covering: ImageSize(width: 100, height: 75), powersOfTwoOnly: true) == 1)
    }

    @Test func readsXMPOrientationInBothForms() {
        func orientation(_ text: String) -> ImageOrientation? {
            Array(text.utf8).withUnsafeBufferPointer { JPEGCoder.xmpOrientation($0) }
        }
        #expect(orientation(#"<rdf:Description tiff:Orientation="6"/>"#) == .right)
        #expect(orientation("<tiff:Orientation>8</tiff:Orientation>") == .left)
        #expect(orientation(#"<rdf:Description tiff:Orientation="9"/>"#) == nil)
        #expect(orientation("tiff:Orientation") == nil)
    }

    @Test func canDecodeOnlyJPEGMagic() throws {
        #expect(coder.canDecode(try Corpus.data("TestImage.jpg")))
        #expect(!coder.canDecode(try Corpus.data("TestImage.png")))
        #expect(!coder.canDecode(Data()))
    }
}

// MARK: - Fixtures and comparison

extension JPEGCoderTests {
    struct Samples: Decodable {
        var width: Int
        var height: Int
        var samples: String
    }

    struct CorpusEntry: Decodable {
        var width: Int
        var height: Int
        var samples: String
        var stored: Samples?
    }

    struct Pixels: Decodable {
        var width: Int
        var height: Int
        var rgb: String
    }

    struct References: Decodable {
        var corpus: [String: CorpusEntry]
        var thumbnail: Samples
        var thumbnailFromFull: Samples
        var orientationBlocks: [[[Int]]]
        var cmyk: [String: Pixels]
    }

    static func references() throws -> References {
        try JSONDecoder().decode(References.self, from: try fixture("references.json"))
    }

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("jpeg").appendingPathComponent(name))
    }

    static func bytes(hex: String) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for c in hex.utf8 {
            let nibble = c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10
            if let h = high { out.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return out
    }

    /// Mean and worst absolute channel difference between `pixels` and the RGB reference
    /// samples, taken at the same grid points as make_fixtures.py.
    static func compare(_ pixels: PixelBuffer, with reference: CorpusEntry) -> (mean: Double, max: Int) {
        compare(pixels, with: Samples(width: reference.width, height: reference.height, samples: reference.samples))
    }

    static func compare(_ pixels: PixelBuffer, with reference: Samples) -> (mean: Double, max: Int) {
        guard pixels.width == reference.width, pixels.height == reference.height else { return (.infinity, .max) }
        let expected = bytes(hex: reference.samples)
        let grid = 32   // GRID in make_fixtures.py
        var total = 0, worst = 0, index = 0
        for j in 0..<grid {
            for i in 0..<grid {
                let x = (2 * i + 1) * pixels.width / (2 * grid), y = (2 * j + 1) * pixels.height / (2 * grid)
                let p = pixels[pixel: x, y]
                for (ours, theirs) in zip([p.red, p.green, p.blue], expected[index..<index + 3]) {
                    let d = abs(Int(ours) - Int(theirs))
                    total += d
                    worst = max(worst, d)
                }
                index += 3
            }
        }
        return (Double(total) / Double(grid * grid * 3), worst)
    }

    /// Worst channel difference against a full RGB reference; alpha must be opaque.
    static func maxDifference(_ pixels: PixelBuffer, rgb reference: Pixels) -> Int {
        guard pixels.width == reference.width, pixels.height == reference.height else { return .max }
        let expected = bytes(hex: reference.rgb)
        var worst = 0
        for index in 0..<pixels.width * pixels.height {
            for channel in 0..<3 {
                worst = max(worst, abs(Int(pixels.bytes[index * 4 + channel]) - Int(expected[index * 3 + channel])))
            }
            if pixels.bytes[index * 4 + 3] != 255 { worst = .max }
        }
        return worst
    }
}
