import Foundation
@testable import WebImage

/// Small synthetic buffers and comparisons shared by the transformer tests.
enum TransformTestSupport {
    /// A buffer whose every pixel is distinct: red = x, green = y, blue = 7x + 3y, opaque.
    static func numbered(width: Int, height: Int) -> PixelBuffer {
        var pixels = PixelBuffer(width: width, height: height, filling: .black)
        for y in 0..<height {
            for x in 0..<width { pixels[pixel: x, y] = numberedColor(x, y) }
        }
        return pixels
    }

    /// The colour ``numbered(width:height:)`` puts at (`x`, `y`).
    static func numberedColor(_ x: Int, _ y: Int) -> RGBAColor {
        RGBAColor(red: UInt8(x), green: UInt8(y), blue: UInt8((7 * x + 3 * y) % 256))
    }

    /// A raw RGBA fixture from Fixtures/transform.
    static func fixture(_ name: String, width: Int, height: Int) throws -> PixelBuffer {
        let url = Corpus.fixtures.appendingPathComponent("transform").appendingPathComponent(name)
        return try PixelBuffer(width: width, height: height, bytes: [UInt8](Data(contentsOf: url)))
    }

    /// Largest and mean absolute channel difference over the pixels `include` accepts.
    static func difference(
        _ a: PixelBuffer, _ b: PixelBuffer, channels: ClosedRange<Int> = 0...3,
        include: (Int, Int) -> Bool = { _, _ in true }
    ) -> (max: Int, mean: Double, count: Int) {
        precondition(a.size == b.size)
        var worst = 0, total = 0, count = 0
        for y in 0..<a.height {
            for x in 0..<a.width where include(x, y) {
                let i = (y * a.width + x) * 4
                for c in channels {
                    let d = abs(Int(a.bytes[i + c]) - Int(b.bytes[i + c]))
                    worst = max(worst, d)
                    total += d
                    count += 1
                }
            }
        }
        return (worst, count == 0 ? 0 : Double(total) / Double(count), count)
    }

    /// A three-frame animation of solid colours, 1/10 s each, looping twice.
    static func animation(width: Int = 6, height: Int = 4) -> Image {
        let colors = [RGBAColor(red: 255, green: 0, blue: 0), RGBAColor(red: 0, green: 255, blue: 0), RGBAColor(red: 0, green: 0, blue: 255)]
        let frames = colors.map { ImageFrame(pixels: PixelBuffer(width: width, height: height, filling: $0), duration: 0.1) }
        return Image(frames: frames, format: .gif, loopCount: 2, hasAlpha: false)
    }
}
