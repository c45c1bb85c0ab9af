import Foundation
import Testing
@testable import WebImage

/// Encoding: round trips, quality, file-size and pixel-size limits, alpha flattening.
@Suite struct JPEGCoderEncodeTests {
    let coder = JPEGCoder()

    /// A real photo (400x300) to encode, as stored: its test profile, applied, would turn
    /// it nearly black (the file checks that a decoder honours profiles).
    func photo() throws -> Image {
        var options = ImageCoderOptions()
        options.keepsColorProfile = true
        let image = try coder.decode(try Corpus.data("TestICCProfile.jpg"), options: options)
        return Image(pixels: image.pixels, format: .jpeg, hasAlpha: false)
    }

    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        guard a.size == b.size else { return .infinity }
        var total = 0
        for index in a.bytes.indices where index % 4 != 3 {
            total += abs(Int(a.bytes[index]) - Int(b.bytes[index]))
        }
        return Double(total) / Double(a.width * a.height * 3)
    }

    func encodedSize(_ image: Image, quality: Double) throws -> Int {
        var options = ImageCoderOptions()
        options.compressionQuality = quality
        return try coder.encode(image, as: .jpeg, options: options).count
    }

    @Test func roundTripKeepsSizeAndPixels() throws {
        let original = try photo()
        var options = ImageCoderOptions()
        options.compressionQuality = 0.9
        let data = try coder.encode(original, as: .jpeg, options: options)
        #expect(ImageFormat(sniffing: data) == .jpeg)
        let decoded = try coder.decode(data, options: ImageCoderOptions())
        #expect(decoded.size == original.size)
        let difference = Self.meanDifference(decoded.pixels, original.pixels)
        #expect(difference < 2.5, "mean difference \(difference)")
    }

    @Test func higherQualityGivesLargerFiles() throws {
        let original = try photo()
        let sizes = try [0.1, 0.3, 0.5, 0.7, 0.9, 1.0].map { try encodedSize(original, quality: $0) }
        #expect(zip(sizes, sizes.dropFirst()).allSatisfy { $0 < $1 }, "\(sizes)")
    }

    @Test func lowerQualityLosesMoreDetail() throws {
        let original = try photo()
        func error(at quality: Double) throws -> Double {
            var options = ImageCoderOptions()
            options.compressionQuality = quality
            let decoded = try coder.decode(try coder.encode(original, as: .jpeg, options: options), options: ImageCoderOptions())
            return Self.meanDifference(decoded.pixels, original.pixels)
        }
        #expect(try error(at: 0.2) > error(at: 0.95))
    }

    @Test func maxFileSizeFitsBetweenLowestAndHighestQuality() throws {
        let original = try photo()
        let smallest = try encodedSize(original, quality: 0)
        let largest = try encodedSize(original, quality: 1)
        let limit = (smallest + largest) / 2
        var options = ImageCoderOptions()
        options.maxFileSize = limit
        let data = try coder.encode(original, as: .jpeg, options: options)
        #expect(data.count <= limit)
        #expect(data.count > smallest && data.count < largest, "\(smallest) < \(data.count) < \(largest)")
        #expect(try coder.decode(data, options: ImageCoderOptions()).size == original.size)
    }

    @Test func maxPixelSizeScalesDownKeepingAspect() throws {
        var options = ImageCoderOptions()
        options.maxPixelSize = ImageSize(width: 100, height: 100)
        let data = try coder.encode(try photo(), as: .jpeg, options: options)
        #expect(try coder.decode(data, options: ImageCoderOptions()).size == ImageSize(width: 100, height: 75))
    }

    @Test func transparentPixelsAreFlattenedOntoBackgroundColor() throws {
        let clearRed = PixelBuffer(width: 32, height: 32, filling: RGBAColor(red: 255, green: 0, blue: 0, alpha: 0))
        var options = ImageCoderOptions()
        options.backgroundColor = RGBAColor(red: 0, green: 0, blue: 255)
        let blue = try coder.decode(try coder.encode(Image(pixels: clearRed), as: .jpeg, options: options), options: ImageCoderOptions())
        let p = blue.pixels[pixel: 16, 16]
        #expect(p.red < 8 && p.green < 8 && p.blue > 247 && p.alpha == 255, "\(p)")

        let white = try coder.decode(try coder.encode(Image(pixels: clearRed), as: .jpeg, options: ImageCoderOptions()), options: ImageCoderOptions())
        let q = white.pixels[pixel: 16, 16]
        #expect(q.red > 247 && q.green > 247 && q.blue > 247, "\(q)")
    }

    @Test func halfTransparentPixelsBlendWithBackground() throws {
        let halfRed = PixelBuffer(width: 16, height: 16, filling: RGBAColor(red: 255, green: 0, blue: 0, alpha: 128))
        var options = ImageCoderOptions()
        options.backgroundColor = .black
        let decoded = try coder.decode(try coder.encode(Image(pixels: halfRed), as: .jpeg, options: options), options: ImageCoderOptions())
        let p = decoded.pixels[pixel: 8, 8]
        #expect(abs(Int(p.red) - 128) <= 6 && p.green < 8 && p.blue < 8, "\(p)")
    }

    @Test func encodesOnlyTheFirstFrame() throws {
        let green = ImageFrame(pixels: PixelBuffer(width: 16, height: 16, filling: RGBAColor(red: 0, green: 255, blue: 0)), duration: 0.1)
        let blue = ImageFrame(pixels: PixelBuffer(width: 16, height: 16, filling: RGBAColor(red: 0, green: 0, blue: 255)), duration: 0.1)
        let data = try coder.encode(Image(frames: [green, blue]), as: .jpeg, options: ImageCoderOptions())
        let p = try coder.decode(data, options: ImageCoderOptions()).pixels[pixel: 8, 8]
        #expect(p.green > 240 && p.blue < 16, "\(p)")
    }

    @Test func encodesOnlyJPEG() throws {
        #expect(coder.canEncode(to: .jpeg))
        #expect(!coder.canEncode(to: .png))
        #expect(throws: WebImageError.unsupportedFormat(.png)) {
            try coder.encode(try photo(), as: .png, options: ImageCoderOptions())
        }
    }

    @Test func qualityMapsToLibjpegScale() {
        #expect(JPEGCoder.libjpegQuality(0) == 1)
        #expect(JPEGCoder.libjpegQuality(0.75) == 75)
        #expect(JPEGCoder.libjpegQuality(1) == 100)
        #expect(JPEGCoder.libjpegQuality(7) == 100)
        #expect(JPEGCoder.libjpegQuality(.nan) == 100)
    }

    @Test func tooWideImageFailsToEncode() throws {
        // JPEG stores sides up to 65500 pixels; libjpeg refuses more.
        let wide = PixelBuffer(width: 70_000, height: 1, filling: .white)
        let error = #expect(throws: WebImageError.self) {
            try coder.encode(Image(pixels: wide), as: .jpeg, options: ImageCoderOptions())
        }
        guard case .encodingFailed = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
    }
}
