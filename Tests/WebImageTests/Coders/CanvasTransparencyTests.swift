import Foundation
import Testing
@testable import WebImage

/// ``CanvasTransparency``: when a GIF's or APNG's frames can show a transparent pixel, from
/// rectangles and disposals alone; and both decode paths of each format reporting it.
@Suite struct CanvasTransparencyTests {
    typealias Disposal = CanvasTransparency.Disposal

    /// A frame of a 20 × 10 canvas.
    struct Frame {
        var x = 0, y = 0, width = 20, height = 10
        var disposal = Disposal.keep
        var transparent = false
    }

    private func hasAlpha(_ frames: [Frame]) -> [Bool] {
        var tracker = CanvasTransparency(width: 20, height: 10)
        return frames.map { frame in
            tracker.frame(x: frame.x, y: frame.y, width: frame.width, height: frame.height,
                          drawsTransparent: frame.transparent, disposal: frame.disposal)
            return tracker.hasAlpha
        }
    }

    @Test func opaqueFramesOverAFullFirstFrameHaveNoAlpha() {
        #expect(hasAlpha([Frame(), Frame(x: 5, width: 5), Frame(y: 2, height: 3)]) == [false, false, false])
    }

    @Test func aSmallFirstFrameOrATransparentColourHasAlpha() {
        #expect(hasAlpha([Frame(width: 19)]) == [true])
        #expect(hasAlpha([Frame(), Frame(transparent: true), Frame()]) == [false, true, true])
    }

    /// The review's case: an opaque full first frame cleared by disposal 2, then a frame
    /// that covers half the canvas.
    @Test func whatAClearingDisposalLeavesUncoveredHasAlpha() {
        #expect(hasAlpha([Frame(disposal: .clear), Frame(width: 10)]) == [false, true])
        // Covered again by the next frame, exactly: no pixel stays clear.
        #expect(hasAlpha([Frame(), Frame(x: 5, width: 5, disposal: .clear), Frame(x: 5, width: 5)]) == [false, false, false])
        #expect(hasAlpha([Frame(), Frame(x: 5, width: 5, disposal: .clear), Frame(x: 4, width: 7)]) == [false, false, false])
        // A clear area outside the canvas clears nothing.
        #expect(hasAlpha([Frame(), Frame(x: 30, width: 5, disposal: .clear), Frame(width: 1)]) == [false, false, false])
    }

    @Test func restoringToAClearCanvasHasAlpha() {
        // Disposal 3 on a first frame restores the empty canvas.
        #expect(hasAlpha([Frame(disposal: .restorePrevious), Frame(width: 10)]) == [false, true])
        // Cleared, covered by a frame with disposal 3, which brings the cleared area back.
        #expect(hasAlpha([Frame(disposal: .clear), Frame(disposal: .restorePrevious), Frame(width: 10)]) == [false, false, true])
        // Restoring an opaque canvas leaves it opaque.
        #expect(hasAlpha([Frame(), Frame(x: 2, width: 3, disposal: .restorePrevious), Frame(x: 9, width: 1)]) == [false, false, false])
    }

    /// Whatever the file, a frame with a transparent pixel means `hasAlpha`, for the
    /// one-shot decode and the lazy source alike, and the two agree.
    @Test(arguments: [
        "disposal_keep.gif", "disposal_background.gif", "disposal_previous.gif", "disposal_previous_first.gif",
        "local_palettes.gif", "interlaced.gif", "past_edge.gif", "small_first_frame.gif", "delays_loop3.gif",
    ])
    func aTransparentPixelMeansHasAlpha(name: String) throws {
        let data = try GIFFixture.data(name)
        let image = try GIFCoder().decode(data, options: ImageCoderOptions())
        let lazy = try GIFFrameSource(animatedImageData: data, options: ImageCoderOptions())
        let transparent = image.frames.contains { frame in
            (0..<frame.pixels.height).contains { y in (0..<frame.pixels.width).contains { x in frame.pixels[pixel: x, y].alpha < 255 } }
        }
        if transparent { #expect(image.hasAlpha) }
        #expect(lazy.properties.hasAlpha == image.hasAlpha)
    }

    /// The review's case as a file, through both paths: frame 0 opaque over the whole
    /// canvas with disposal 2, frame 1 opaque over its left half.
    @Test func aClearedAreaLeftUncoveredIsReportedByBothPaths() throws {
        let data = Self.gif(width: 8, height: 4, frames: [(0, 0, 8, 4, 2, 1), (0, 0, 4, 4, 0, 2)])
        let image = try GIFCoder().decode(data, options: ImageCoderOptions())
        #expect(image.frameCount == 2)
        #expect(image.frames[1].pixels[pixel: 6, 1] == .clear)
        #expect(image.frames[1].pixels[pixel: 1, 1].alpha == 255)
        #expect(image.hasAlpha)
        #expect(try GIFFrameSource(animatedImageData: data, options: ImageCoderOptions()).properties.hasAlpha)
        // The same frames with disposal 1: opaque everywhere, and said so.
        let opaque = Self.gif(width: 8, height: 4, frames: [(0, 0, 8, 4, 1, 1), (0, 0, 4, 4, 0, 2)])
        #expect(try !GIFCoder().decode(opaque, options: ImageCoderOptions()).hasAlpha)
    }

    /// The same for an RGB APNG (no alpha channel, no tRNS): a frame disposed to the
    /// background and not covered again leaves clear pixels, and both paths say so.
    @Test func anRGBAnimatedPNGWithAClearedAreaHasAlpha() throws {
        let full = PixelBuffer(width: 4, height: 2, filling: .white)
        let half = PixelBuffer(width: 2, height: 2, filling: .black)
        let cleared = try APNGTestFile.build(frames: [.init(pixels: full, dispose: .background), .init(pixels: half)], rgb: true)
        let image = try PNGCoder().decode(cleared, options: ImageCoderOptions())
        #expect(image.frames[1].pixels[pixel: 3, 1] == .clear)
        #expect(image.hasAlpha)
        #expect(try APNGFrameSource(animatedImageData: cleared, options: ImageCoderOptions()).properties.hasAlpha)
        let kept = try APNGTestFile.build(frames: [.init(pixels: full), .init(pixels: half)], rgb: true)
        #expect(try !PNGCoder().decode(kept, options: ImageCoderOptions()).hasAlpha)
        #expect(try !APNGFrameSource(animatedImageData: kept, options: ImageCoderOptions()).properties.hasAlpha)
    }

    /// A GIF89a with a 4-colour global table; each frame (x, y, width, height, disposal,
    /// colour index) is solid, without a transparent colour. The LZW data sends a clear
    /// code every two pixels, so every code stays 3 bits wide.
    static func gif(width: Int, height: Int, frames: [(Int, Int, Int, Int, Int, Int)]) -> Data {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        var bytes = Array("GIF89a".utf8) + le16(width) + le16(height) + [0xF1, 0, 0]
        bytes += [0, 0, 0, 200, 40, 10, 40, 200, 60, 30, 60, 230]
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        for (x, y, w, h, disposal, colour) in frames {
            bytes += [0x21, 0xF9, 4, UInt8(disposal << 2), 10, 0, 0, 0]
            bytes += [0x2C] + le16(x) + le16(y) + le16(w) + le16(h) + [0]
            var codes: [Int] = []
            for pixel in 0..<(w * h) {
                if pixel % 2 == 0 { codes.append(4) }
                codes.append(colour)
            }
            codes.append(5)
            var packed: [UInt8] = []
            var accumulator = 0, bits = 0
            for code in codes {
                accumulator |= code << bits
                bits += 3
                while bits >= 8 {
                    packed.append(UInt8(accumulator & 0xFF))
                    accumulator >>= 8
                    bits -= 8
                }
            }
            if bits > 0 { packed.append(UInt8(accumulator & 0xFF)) }
            bytes.append(2)
            var start = 0
            while start < packed.count {
                let block = packed[start..<min(start + 255, packed.count)]
                bytes.append(UInt8(block.count))
                bytes += block
                start += block.count
            }
            bytes.append(0)
        }
        bytes.append(0x3B)
        return Data(bytes)
    }
}
