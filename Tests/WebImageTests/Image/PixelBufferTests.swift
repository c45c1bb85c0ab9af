import Testing
@testable import WebImage

@Suite struct PixelBufferTests {
    @Test func wrapsBytesOfExactlyTheRightCount() throws {
        let buffer = try PixelBuffer(width: 2, height: 1, bytes: [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(buffer[pixel: 1, 0] == RGBAColor(red: 5, green: 6, blue: 7, alpha: 8))
        #expect(buffer.bytesPerRow == 8)
    }

    @Test(arguments: [(2, 1, 7), (2, 1, 9), (0, 1, 0), (1, -1, 4), (Int.max, 2, 8), (Int.max / 4, 2, 8), (1 << 31, 1 << 31, 4)])
    func refusesSizesTheBytesDoNotHoldWithoutTrapping(width: Int, height: Int, count: Int) {
        #expect(throws: WebImageError.self) {
            try PixelBuffer(width: width, height: height, bytes: [UInt8](repeating: 0, count: count))
        }
    }

    @Test func findsTransparency() {
        var buffer = PixelBuffer(width: 3, height: 3, filling: .black)
        #expect(!buffer.containsTransparency)
        buffer[pixel: 2, 2] = RGBAColor(red: 0, green: 0, blue: 0, alpha: 254)
        #expect(buffer.containsTransparency)
    }
}
