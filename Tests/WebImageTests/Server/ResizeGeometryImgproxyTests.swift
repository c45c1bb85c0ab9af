import Testing
@testable import WebImage
@testable import WebImageServer

/// imgproxy's own expected result sizes (its `processing_test.go`, on its 200 × 100
/// `geometry.png`), for every resizing type with and without `enlarge` and `extend`, and
/// under a result-size limit: the same URL must give the same size here. Padding and
/// `extend_aspect_ratio`, which the server does not support, are left out.
@Suite struct ResizeGeometryImgproxyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var type: ProcessingOptions.ResizingType
        var width: Int, height: Int
        var enlarge = false, extend = false
        var limit = 0
        var rotate = 0
        var result: (width: Int, height: Int)
        var testDescription: String {
            "\(type.rawValue) \(width)x\(height)\(enlarge ? " enlarge" : "")\(extend ? " extend" : "")\(limit > 0 ? " limit \(limit)" : "")\(rotate > 0 ? " rot \(rotate)" : "")"
        }
    }

    /// The ten boxes every one of imgproxy's size tests tries, with the result each type gives.
    static func table(_ type: ProcessingOptions.ResizingType, enlarge: Bool = false, extend: Bool = false, _ rows: [(Int, Int, Int, Int)]) -> [Case] {
        rows.map { Case(type: type, width: $0.0, height: $0.1, enlarge: enlarge, extend: extend, result: ($0.2, $0.3)) }
    }

    static let cases: [Case] =
        table(.fit, [(50, 50, 50, 25), (50, 20, 40, 20), (20, 50, 20, 10), (300, 300, 200, 100), (300, 50, 100, 50),
                     (100, 300, 100, 50), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100)])
        + table(.fit, enlarge: true, [(50, 50, 50, 25), (50, 20, 40, 20), (20, 50, 20, 10), (300, 300, 300, 150), (300, 125, 250, 125),
                                      (250, 300, 250, 125), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 400, 200), (300, 0, 300, 150)])
        + table(.fit, extend: true, [(50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
                                     (250, 300, 250, 300), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 200), (300, 0, 300, 100)])
        + table(.fill, [(50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 200, 100), (300, 50, 200, 50),
                        (100, 300, 100, 100), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100)])
        + table(.fill, enlarge: true, [(50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
                                       (250, 300, 250, 300), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 400, 200), (300, 0, 300, 150)])
        + table(.fill, extend: true, [(50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
                                      (250, 300, 250, 300), (300, 50, 300, 50), (100, 300, 100, 300), (0, 50, 100, 50), (50, 0, 50, 25),
                                      (0, 200, 200, 200), (300, 0, 300, 100)])
        + table(.fillDown, [(50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 100, 100), (300, 125, 200, 83),
                            (250, 300, 83, 100), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100)])
        + table(.fillDown, enlarge: true, [(50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
                                           (250, 300, 250, 300), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 400, 200), (300, 0, 300, 150)])
        + table(.fillDown, extend: true, [(50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
                                          (250, 300, 250, 300), (300, 50, 300, 50), (100, 300, 100, 300), (0, 50, 100, 50), (50, 0, 50, 25),
                                          (0, 200, 200, 200), (300, 0, 300, 100)])
        // `TestResultSizeLimit`: a result over the limit is scaled down to it, not refused.
        + [
            Case(type: .fit, width: 100, height: 100, limit: 1000, result: (100, 50)),
            Case(type: .fit, width: 100, height: 100, limit: 50, result: (50, 25)),
            Case(type: .fit, width: 0, height: 0, limit: 50, result: (50, 25)),
            Case(type: .fit, width: 0, height: 100, limit: 100, result: (100, 50)),
            Case(type: .fit, width: 150, height: 0, limit: 50, result: (50, 25)),
            Case(type: .fit, width: 1000, height: 1000, limit: 100, result: (100, 50)),
            Case(type: .fit, width: 1000, height: 1000, enlarge: true, limit: 100, result: (100, 50)),
            Case(type: .fit, width: 1000, height: 2000, extend: true, limit: 100, result: (50, 100)),
            Case(type: .fill, width: 0, height: 0, limit: 50, result: (50, 25)),
            Case(type: .fill, width: 0, height: 100, limit: 100, result: (100, 50)),
            Case(type: .fill, width: 150, height: 0, limit: 50, result: (50, 25)),
            Case(type: .fill, width: 1000, height: 1000, limit: 100, result: (100, 50)),
            Case(type: .fill, width: 1000, height: 1000, enlarge: true, limit: 100, result: (100, 100)),
            Case(type: .fill, width: 1000, height: 2000, extend: true, limit: 100, result: (50, 100)),
            Case(type: .fill, width: 100, height: 150, limit: 100, rotate: 90, result: (67, 100)),
            Case(type: .fill, width: 0, height: 0, limit: 100, rotate: 90, result: (50, 100)),
            Case(type: .fillDown, width: 100, height: 100, limit: 1000, result: (100, 100)),
            Case(type: .fillDown, width: 100, height: 100, limit: 50, result: (50, 50)),
            Case(type: .fillDown, width: 1000, height: 50, limit: 50, result: (50, 3)),
            Case(type: .fillDown, width: 100, height: 1000, limit: 50, result: (5, 50)),
            Case(type: .fillDown, width: 0, height: 0, limit: 50, result: (50, 25)),
            Case(type: .fillDown, width: 0, height: 100, limit: 100, result: (100, 50)),
            Case(type: .fillDown, width: 150, height: 0, limit: 50, result: (50, 25)),
            Case(type: .fillDown, width: 1000, height: 1000, limit: 100, result: (100, 100)),
            Case(type: .fillDown, width: 1000, height: 1000, enlarge: true, limit: 100, result: (100, 100)),
            Case(type: .fillDown, width: 1000, height: 2000, extend: true, limit: 100, result: (50, 100)),
            Case(type: .fillDown, width: 1000, height: 1500, limit: 100, rotate: 90, result: (67, 100)),
            Case(type: .fillDown, width: 0, height: 0, limit: 100, rotate: 90, result: (50, 100)),
        ]

    @Test(arguments: cases)
    func theResultHasImgproxysSize(_ testCase: Case) {
        var options = ProcessingOptions()
        options.resizingType = testCase.type
        options.width = testCase.width
        options.height = testCase.height
        options.enlarge = testCase.enlarge
        options.extend = testCase.extend
        options.rotate = testCase.rotate
        let geometry = ResizeGeometry(source: ImageSize(width: 200, height: 100), options: options, maxResultDimension: testCase.limit)
        #expect(geometry.canvasSize == ImageSize(width: testCase.result.width, height: testCase.result.height))
        // The crop lies inside the scaled source, and the image inside the canvas.
        #expect(geometry.crop.x >= 0 && geometry.crop.y >= 0)
        #expect(geometry.crop.x + geometry.crop.width <= geometry.scaledSize.width)
        #expect(geometry.crop.y + geometry.crop.height <= geometry.scaledSize.height)
        #expect(geometry.placement.x + geometry.placement.width <= geometry.canvasSize.width)
        #expect(geometry.placement.y + geometry.placement.height <= geometry.canvasSize.height)
    }
}
