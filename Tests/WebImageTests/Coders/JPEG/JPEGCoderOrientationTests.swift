import Foundation
import Testing
@testable import WebImage

/// All eight EXIF orientations, on 48x32 fixtures of six coloured 16x16 blocks stored
/// turned so that the orientation brings them upright (Fixtures/jpeg/make_fixtures.py).
@Suite struct JPEGCoderOrientationTests {
    let coder = JPEGCoder()

    @Test(arguments: 1...8)
    func decodesOrientationUpright(exifValue: Int) throws {
        let data = try JPEGCoderTests.fixture("orientation-\(exifValue).jpg")
        let blocks = try JPEGCoderTests.references().orientationBlocks
        let image = try coder.decode(data, options: ImageCoderOptions())
        #expect(image.orientation == ImageOrientation(exifValue: exifValue))
        #expect(image.size == ImageSize(width: 48, height: 32))
        for (row, colours) in blocks.enumerated() {
            for (column, colour) in colours.enumerated() {
                // The centre of each block, away from the compression's edge effects.
                let p = image.pixels[pixel: column * 16 + 8, row * 16 + 8]
                let difference = max(abs(Int(p.red) - colour[0]), abs(Int(p.green) - colour[1]), abs(Int(p.blue) - colour[2]))
                #expect(difference <= 12, "orientation \(exifValue), block (\(column), \(row)): \(p) vs \(colour)")
            }
        }
    }

    @Test(arguments: 1...8)
    func keepsStoredPixelsWithoutApplyOrientation(exifValue: Int) throws {
        let data = try JPEGCoderTests.fixture("orientation-\(exifValue).jpg")
        var options = ImageCoderOptions()
        options.applyOrientation = false
        let stored = try coder.decode(data, options: options)
        let orientation = ImageOrientation(exifValue: exifValue)
        #expect(stored.orientation == orientation)
        #expect(stored.size == (orientation.swapsDimensions ? ImageSize(width: 32, height: 48) : ImageSize(width: 48, height: 32)))
        // Turning the stored pixels ourselves gives exactly what the decoder produced upright.
        let upright = try coder.decode(data, options: ImageCoderOptions())
        #expect(orientation.apply(to: stored.pixels) == upright.pixels)
    }

    @Test(arguments: 1...8)
    func orientedThumbnailFitsTheUprightBox(exifValue: Int) throws {
        let data = try JPEGCoderTests.fixture("orientation-\(exifValue).jpg")
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 24, height: 24)
        let image = try coder.decode(data, options: options)
        #expect(image.size == ImageSize(width: 24, height: 16))
        #expect(image.isThumbnail)
        // Top-left block is red, bottom-right cyan, whatever the stored turn.
        let topLeft = image.pixels[pixel: 3, 3], bottomRight = image.pixels[pixel: 20, 12]
        #expect(topLeft.red > 170 && topLeft.green < 90 && topLeft.blue < 90, "\(topLeft)")
        #expect(bottomRight.red < 90 && bottomRight.green > 170 && bottomRight.blue > 170, "\(bottomRight)")
    }
}
