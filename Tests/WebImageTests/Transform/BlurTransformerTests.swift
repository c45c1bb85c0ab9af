import Testing
@testable import WebImage

@Suite("Blur transformer")
struct BlurTransformerTests {
    @Test(arguments: [0.5, 3.0, 40.0])
    func constantImageStaysConstant(radius: Double) throws {
        let colour = RGBAColor(red: 37, green: 150, blue: 222, alpha: 180)
        let flat = PixelBuffer(width: 17, height: 9, filling: colour)
        #expect(try BlurTransformer(radius: radius).transform(pixels: flat) == flat)
    }

    @Test func singleBrightPixelSpreadsSymmetricallyAndKeepsItsEnergy() throws {
        let size = 41
        var dark = PixelBuffer(width: size, height: size, filling: .black)
        let points = [(20, 20), (10, 12), (30, 25)]
        for (x, y) in points { dark[pixel: x, y] = .white }
        let sum = 255 * points.count
        let single = try BlurTransformer(radius: 2).transform(pixels: {
            var p = PixelBuffer(width: size, height: size, filling: .black)
            p[pixel: 20, 20] = .white
            return p
        }())
        // Symmetric under both mirrors and the diagonal.
        for y in 0..<size {
            for x in 0..<size {
                let v = single[pixel: x, y].red
                #expect(v == single[pixel: size - 1 - x, y].red)
                #expect(v == single[pixel: x, size - 1 - y].red)
                #expect(v == single[pixel: y, x].red)
            }
        }
        #expect(single[pixel: 20, 20].red < 255 && single[pixel: 20, 20].red > single[pixel: 21, 20].red)
        #expect(single[pixel: 23, 20].red > 0)
        let blurred = try BlurTransformer(radius: 2).transform(pixels: dark)
        let total = blurred.bytes.enumerated().filter { $0.offset % 4 == 0 }.reduce(0) { $0 + Int($1.element) }
        // Energy is conserved up to rounding: each pixel the kernel reaches rounds by at
        // most ½ (the faint tail, below ½, rounds to 0, so the total only drops).
        let reach = 2 * BlurTransformer.BoxBlur.passes * (BlurTransformer.BoxBlur(sigma: 2).whole + 1) + 1
        #expect(total <= sum && sum - total <= reach * reach * points.count / 2)
        #expect(sum - total < sum / 10)
    }

    @Test func transparentNeighboursDoNotDarkenColour() throws {
        var pixels = PixelBuffer(width: 9, height: 9, filling: .clear)
        for y in 3..<6 { for x in 3..<6 { pixels[pixel: x, y] = RGBAColor(red: 250, green: 200, blue: 10) } }
        let out = try BlurTransformer(radius: 1.5).transform(pixels: pixels)
        for y in 0..<9 {
            for x in 0..<9 where out[pixel: x, y].alpha >= 8 {
                let p = out[pixel: x, y]
                #expect(abs(Int(p.red) - 250) <= 4 && abs(Int(p.green) - 200) <= 4 && abs(Int(p.blue) - 10) <= 4)
            }
        }
        #expect(out[pixel: 1, 4].alpha > 0 && out[pixel: 4, 4].alpha < 255)
    }

    @Test func tinyRadiusLeavesPixelsAndNaNThrows() throws {
        let pixels = TransformTestSupport.numbered(width: 6, height: 6)
        #expect(try BlurTransformer(radius: 0).transform(pixels: pixels) == pixels)
        #expect(throws: WebImageError.self) { try BlurTransformer(radius: .nan).transform(pixels: pixels) }
    }

    @Test func hugeRadiusOnOnePixelLineStaysFinite() throws {
        let line = TransformTestSupport.numbered(width: 30, height: 1)
        let out = try BlurTransformer(radius: 1e12).transform(pixels: line)
        #expect(out.size == line.size)
        #expect(!out.containsTransparency)
    }
}
