import Foundation
@testable import WebImage

/// Synthetic images and error measures shared by the GIF encoder and quantiser tests.
enum GIFEncoderFixtures {
    /// A deterministic pattern using exactly `colors` distinct opaque colours (≤ 256),
    /// every one of them at least once when `width × height ≥ colors`.
    static func pattern(width: Int, height: Int, colors: Int, shift: Int = 0) -> PixelBuffer {
        var pixels = PixelBuffer(width: width, height: height, filling: .black)
        for y in 0..<height {
            for x in 0..<width {
                let k = (y * width + x + shift) % colors
                pixels[pixel: x, y] = color(k)
            }
        }
        return pixels
    }

    /// The `k`-th colour of ``pattern(width:height:colors:shift:)``: spread over the cube.
    static func color(_ k: Int) -> RGBAColor {
        RGBAColor(red: UInt8((k * 37) % 256), green: UInt8((k * 91 + 17) % 256), blue: UInt8((k * 13 + 200) % 256))
    }

    /// TestImageLarge.jpg decoded to fit 400×400: a real photo frame.
    static func photo() throws -> PixelBuffer {
        try decodedPhoto.get()
    }

    /// Decoded once for all tests (a static is initialised once, thread-safely).
    private static let decodedPhoto = Result<PixelBuffer, any Error> {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 400, height: 400)
        return try JPEGCoder().decode(Corpus.data("TestImageLarge.jpg"), options: options).pixels
    }

    /// The RGBA image that `indices` show with `palette` (transparent entry → clear).
    static func expand(_ indices: [UInt8], palette: ColorQuantizer.Palette, size: ImageSize) -> PixelBuffer {
        var pixels = PixelBuffer(width: size.width, height: size.height, filling: .clear)
        for (offset, index) in indices.enumerated() where Int(index) != palette.transparentIndex {
            let i = Int(index) * 3
            pixels[pixel: offset % size.width, offset / size.width] =
                RGBAColor(red: palette.rgb[i], green: palette.rgb[i + 1], blue: palette.rgb[i + 2])
        }
        return pixels
    }

    /// Each channel rounded to the nearest level of a uniform 3-3-2 palette.
    static func uniform332(_ pixels: PixelBuffer) -> PixelBuffer {
        var out = pixels
        func level(_ value: UInt8, steps: Int) -> UInt8 {
            let step = (Double(value) * Double(steps - 1) / 255).rounded()
            return UInt8((step * 255 / Double(steps - 1)).rounded())
        }
        for i in stride(from: 0, to: out.bytes.count, by: 4) {
            out.bytes[i] = level(out.bytes[i], steps: 8)
            out.bytes[i + 1] = level(out.bytes[i + 1], steps: 8)
            out.bytes[i + 2] = level(out.bytes[i + 2], steps: 4)
        }
        return out
    }

    /// Mean absolute difference over the R, G and B channels.
    static func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.size == b.size)
        var total = 0
        for i in stride(from: 0, to: a.bytes.count, by: 4) {
            for c in 0..<3 { total += abs(Int(a.bytes[i + c]) - Int(b.bytes[i + c])) }
        }
        return Double(total) / Double(a.width * a.height * 3)
    }

    /// The duration our decoder reports for a frame encoded with `duration`: hundredths
    /// rounded, and delays under 0.011 s shown as 0.1 s.
    static func decodedDuration(_ duration: TimeInterval) -> TimeInterval {
        let stored = (duration * 100).rounded() / 100
        return stored < 0.011 ? 0.1 : stored
    }
}

extension GIFEncoderFixtures {
    /// A 48×32 frame: a fixed 12-colour background with a 6×4 square moved by `frame`.
    static func movingSquare(frame: Int) -> PixelBuffer {
        var pixels = pattern(width: 48, height: 32, colors: 12)
        let left = 4 + frame * 5, top = 3 + frame * 3
        for y in top..<min(32, top + 4) {
            for x in left..<min(48, left + 6) { pixels[pixel: x, y] = RGBAColor(red: 250, green: 250, blue: 10) }
        }
        return pixels
    }

    /// Mean absolute difference of the 8×8 block averages: what the eye sees from afar,
    /// where dithering's noise averages out but banding does not.
    static func blockError(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        var total = 0.0, count = 0
        for by in stride(from: 0, through: a.height - 8, by: 8) {
            for bx in stride(from: 0, through: a.width - 8, by: 8) {
                for c in 0..<3 {
                    var sa = 0, sb = 0
                    for y in by..<by + 8 {
                        for x in bx..<bx + 8 {
                            sa += Int(a.bytes[(y * a.width + x) * 4 + c])
                            sb += Int(b.bytes[(y * b.width + x) * 4 + c])
                        }
                    }
                    total += abs(Double(sa - sb)) / 64
                    count += 1
                }
            }
        }
        return total / Double(count)
    }
}
