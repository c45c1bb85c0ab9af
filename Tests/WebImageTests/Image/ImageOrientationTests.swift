import Testing
@testable import WebImage

@Suite struct ImageOrientationTests {
    /// 3×2 pixels labelled 1...6 in the red channel, row by row:
    /// ```
    /// 1 2 3
    /// 4 5 6
    /// ```
    static func labelled() throws -> PixelBuffer {
        try buffer(width: 3, height: 2, labels: [1, 2, 3, 4, 5, 6])
    }

    static func buffer(width: Int, height: Int, labels: [UInt8]) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, bytes: labels.flatMap { [$0, 255 - $0, $0 &* 7, 255] })
    }

    /// Worked out by hand from EXIF's definitions (and matching Pillow's `exif_transpose`:
    /// 2 flip left-right, 3 rotate 180°, 4 flip top-bottom, 5 transpose, 6 rotate 90°
    /// clockwise, 7 transverse, 8 rotate 90° counter-clockwise).
    static let expected: [(ImageOrientation, width: Int, height: Int, labels: [UInt8])] = [
        (.up, 3, 2, [1, 2, 3, 4, 5, 6]),
        (.upMirrored, 3, 2, [3, 2, 1, 6, 5, 4]),
        (.down, 3, 2, [6, 5, 4, 3, 2, 1]),
        (.downMirrored, 3, 2, [4, 5, 6, 1, 2, 3]),
        (.leftMirrored, 2, 3, [1, 4, 2, 5, 3, 6]),
        (.right, 2, 3, [4, 1, 5, 2, 6, 3]),
        (.rightMirrored, 2, 3, [6, 3, 5, 2, 4, 1]),
        (.left, 2, 3, [3, 6, 2, 5, 1, 4]),
    ]

    @Test(arguments: 0..<8)
    func applyTurnsPixelsUpright(index: Int) throws {
        let (orientation, width, height, labels) = Self.expected[index]
        let result = orientation.apply(to: try Self.labelled())
        #expect(result == (try Self.buffer(width: width, height: height, labels: labels)), "\(orientation)")
        #expect(result.size == orientation.orientedSize(ImageSize(width: 3, height: 2)))
    }

    @Test func everyOrientationIsCovered() {
        #expect(Set(Self.expected.map(\.0)) == Set(ImageOrientation.allCases))
    }

    @Test func fourClockwiseTurnsReturnTheOriginal() throws {
        let source = try Self.labelled()
        var turned = source
        for _ in 0..<4 { turned = ImageOrientation.right.apply(to: turned) }
        #expect(turned == source)
        #expect(ImageOrientation.left.apply(to: ImageOrientation.right.apply(to: source)) == source)
    }

    @Test func mirrorsAreTheirOwnInverse() throws {
        let source = try Self.labelled()
        for orientation in [ImageOrientation.upMirrored, .downMirrored, .leftMirrored, .rightMirrored, .down] {
            #expect(orientation.apply(to: orientation.apply(to: source)) == source, "\(orientation)")
        }
    }

    @Test func exifValuesOutsideOneToEightMeanUp() {
        for value in [0, 9, -1, 255, Int.max] {
            #expect(ImageOrientation(exifValue: value) == .up)
        }
        for value in 1...8 {
            #expect(ImageOrientation(exifValue: value).rawValue == value)
        }
    }

    @Test func onlyTheLastFourSwapDimensions() {
        #expect(ImageOrientation.allCases.filter(\.swapsDimensions) == [.leftMirrored, .right, .rightMirrored, .left])
    }
}
