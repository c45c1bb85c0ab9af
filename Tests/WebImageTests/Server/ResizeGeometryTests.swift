import Testing
@testable import WebImage
@testable import WebImageServer

/// imgproxy's resizing rules as numbers: for a source size and options, the scaled size,
/// the crop, the canvas and the placement.
@Suite struct ResizeGeometryTests {
    static func size(_ width: Int, _ height: Int) -> ImageSize { ImageSize(width: width, height: height) }
    static func rect(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> PixelRect { PixelRect(x: x, y: y, width: width, height: height) }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var source: ImageSize
        var options: ProcessingOptions
        var scaled: ImageSize
        var crop: PixelRect
        var canvas: ImageSize
        var placement: PixelRect
        var testDescription: String { name }

        /// `change` sets the options; without `canvas`/`placement` the canvas is the crop
        /// (rotated for a quarter turn) and the placement fills it.
        init(
            _ name: String, _ source: ImageSize, _ change: (inout ProcessingOptions) -> Void,
            scaled: ImageSize, crop: PixelRect, canvas: ImageSize? = nil, placement: PixelRect? = nil
        ) {
            self.name = name
            self.source = source
            var options = ProcessingOptions()
            change(&options)
            self.options = options
            self.scaled = scaled
            self.crop = crop
            let quarter = options.rotate % 180 != 0
            let final = quarter ? ImageSize(width: crop.height, height: crop.width) : ImageSize(width: crop.width, height: crop.height)
            self.canvas = canvas ?? final
            self.placement = placement ?? PixelRect(x: 0, y: 0, width: final.width, height: final.height)
        }
    }

    static let cases: [Case] = [
        // No box: the source as it is.
        Case("no options", size(640, 480), { _ in }, scaled: size(640, 480), crop: rect(0, 0, 640, 480)),
        // fit
        Case("fit 300x300 landscape", size(2000, 1000), { $0.width = 300; $0.height = 300 }, scaled: size(300, 150), crop: rect(0, 0, 300, 150)),
        Case("fit 300x300 portrait", size(1000, 2000), { $0.width = 300; $0.height = 300 }, scaled: size(150, 300), crop: rect(0, 0, 150, 300)),
        Case("fit width only", size(2000, 1000), { $0.width = 500 }, scaled: size(500, 250), crop: rect(0, 0, 500, 250)),
        Case("fit height only", size(2000, 1000), { $0.height = 100 }, scaled: size(200, 100), crop: rect(0, 0, 200, 100)),
        Case("fit never enlarges", size(200, 100), { $0.width = 400; $0.height = 400 }, scaled: size(200, 100), crop: rect(0, 0, 200, 100)),
        Case("fit enlarges when asked", size(200, 100), { $0.width = 400; $0.height = 400; $0.enlarge = true }, scaled: size(400, 200), crop: rect(0, 0, 400, 200)),
        Case("fit rounds", size(1000, 333), { $0.width = 100 }, scaled: size(100, 33), crop: rect(0, 0, 100, 33)),
        Case("fit never below one pixel", size(10_000, 10), { $0.width = 100 }, scaled: size(100, 1), crop: rect(0, 0, 100, 1)),
        // fill
        Case("fill crops the centre", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300 },
             scaled: size(600, 300), crop: rect(150, 0, 300, 300)),
        Case("fill portrait crops the middle rows", size(1000, 2000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300 },
             scaled: size(300, 600), crop: rect(0, 150, 300, 300)),
        Case("fill with one side fits", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300 },
             scaled: size(300, 150), crop: rect(0, 0, 300, 150)),
        Case("fill of a smaller source crops without enlarging", size(200, 100), { $0.resizingType = .fill; $0.width = 150; $0.height = 150 },
             scaled: size(200, 100), crop: rect(26, 0, 150, 100)),
        Case("fill enlarges when asked", size(200, 100), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.enlarge = true },
             scaled: size(600, 300), crop: rect(150, 0, 300, 300)),
        // fill-down
        Case("fill-down like fill when the source is large", size(2000, 1000), { $0.resizingType = .fillDown; $0.width = 300; $0.height = 300 },
             scaled: size(600, 300), crop: rect(150, 0, 300, 300)),
        Case("fill-down keeps the box's ratio for a small source", size(200, 100), { $0.resizingType = .fillDown; $0.width = 400; $0.height = 400 },
             scaled: size(200, 100), crop: rect(50, 0, 100, 100)),
        Case("fill-down 2:1 box on a small square", size(100, 100), { $0.resizingType = .fillDown; $0.width = 200; $0.height = 100 },
             scaled: size(100, 100), crop: rect(0, 26, 100, 50)),
        // force
        Case("force stretches", size(2000, 1000), { $0.resizingType = .force; $0.width = 300; $0.height = 300 },
             scaled: size(300, 300), crop: rect(0, 0, 300, 300)),
        // imgproxy: the side not given stays the source's.
        Case("force with one side changes only that side", size(2000, 1000), { $0.resizingType = .force; $0.width = 300 },
             scaled: size(300, 1000), crop: rect(0, 0, 300, 1000)),
        // imgproxy: without enlarge, both sides shrink by what the larger one lacks.
        Case("force without enlarge keeps the box's shape", size(200, 100), { $0.resizingType = .force; $0.width = 100; $0.height = 400 },
             scaled: size(25, 100), crop: rect(0, 0, 25, 100)),
        // auto: a square counts as landscape, as in imgproxy.
        Case("auto fills a landscape box from a square", size(1000, 1000), { $0.resizingType = .auto; $0.width = 400; $0.height = 300 },
             scaled: size(400, 400), crop: rect(0, 50, 400, 300)),
        Case("auto fits a portrait source into a square box", size(600, 1000), { $0.resizingType = .auto; $0.width = 300; $0.height = 300 },
             scaled: size(180, 300), crop: rect(0, 0, 180, 300)),
        // dpr without enlarge: only as far as the source allows, keeping the box's shape.
        Case("dpr is capped by the source and keeps the box's shape", size(500, 500), { $0.resizingType = .fill; $0.width = 300; $0.height = 200; $0.dpr = 2 },
             scaled: size(500, 500), crop: rect(0, 84, 500, 333)),
        Case("dpr with extend keeps the composition", size(100, 100), { $0.width = 300; $0.height = 300; $0.extend = true; $0.dpr = 2 },
             scaled: size(100, 100), crop: rect(0, 0, 100, 100), canvas: size(300, 300), placement: rect(100, 100, 100, 100)),
        // Gravity offsets: under 1 a fraction of the side, else pixels times the dpr.
        Case("an offset under 1 is a fraction of the width", size(400, 200), { $0.resizingType = .fill; $0.width = 100; $0.height = 100; $0.gravity = .anchor(.center, xOffset: 0.25, yOffset: 0) },
             scaled: size(200, 100), crop: rect(100, 0, 100, 100)),
        Case("a pixel offset is multiplied by the dpr", size(400, 200), { $0.resizingType = .fill; $0.width = 100; $0.height = 100; $0.dpr = 2; $0.gravity = .anchor(.west, xOffset: 20, yOffset: 0) },
             scaled: size(400, 200), crop: rect(40, 0, 200, 200)),
        // The crop is taken after the rotation: north is the top of the result.
        Case("north after a quarter turn is the source's left", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.rotate = 90; $0.gravity = .anchor(.north, xOffset: 0, yOffset: 0) },
             scaled: size(600, 300), crop: rect(0, 0, 300, 300)),
        Case("north after a half turn is the source's bottom", size(1000, 2000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.rotate = 180; $0.gravity = .anchor(.north, xOffset: 0, yOffset: 0) },
             scaled: size(300, 600), crop: rect(0, 300, 300, 300)),
        Case("auto fills when both are landscape", size(2000, 1000), { $0.resizingType = .auto; $0.width = 400; $0.height = 300 },
             scaled: size(600, 300), crop: rect(100, 0, 400, 300)),
        Case("auto fits when the orientations differ", size(2000, 1000), { $0.resizingType = .auto; $0.width = 300; $0.height = 400 },
             scaled: size(300, 150), crop: rect(0, 0, 300, 150)),
        Case("auto fills when both are portrait", size(1000, 2000), { $0.resizingType = .auto; $0.width = 300; $0.height = 400 },
             scaled: size(300, 600), crop: rect(0, 100, 300, 400)),
        // dpr
        Case("dpr multiplies the box", size(2000, 1000), { $0.width = 100; $0.dpr = 2 }, scaled: size(200, 100), crop: rect(0, 0, 200, 100)),
        // gravity on a fill crop of 600x300 → 300x300 (150 columns free)
        Case("gravity west", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .anchor(.west, xOffset: 0, yOffset: 0) },
             scaled: size(600, 300), crop: rect(0, 0, 300, 300)),
        Case("gravity east", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .anchor(.east, xOffset: 0, yOffset: 0) },
             scaled: size(600, 300), crop: rect(300, 0, 300, 300)),
        Case("gravity north-east on a landscape", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .anchor(.northEast, xOffset: 0, yOffset: 0) },
             scaled: size(600, 300), crop: rect(300, 0, 300, 300)),
        Case("gravity south-west on a portrait", size(1000, 2000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .anchor(.southWest, xOffset: 0, yOffset: 0) },
             scaled: size(300, 600), crop: rect(0, 300, 300, 300)),
        Case("gravity south on a portrait", size(1000, 2000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .anchor(.south, xOffset: 0, yOffset: 0) },
             scaled: size(300, 600), crop: rect(0, 300, 300, 300)),
        Case("gravity north on a portrait", size(1000, 2000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .anchor(.north, xOffset: 0, yOffset: 0) },
             scaled: size(300, 600), crop: rect(0, 0, 300, 300)),
        Case("west offset moves right", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .anchor(.west, xOffset: 40, yOffset: 0) },
             scaled: size(600, 300), crop: rect(40, 0, 300, 300)),
        Case("east offset moves left", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .anchor(.east, xOffset: 40, yOffset: 0) },
             scaled: size(600, 300), crop: rect(260, 0, 300, 300)),
        Case("centre offset shifts", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .anchor(.center, xOffset: -50, yOffset: 0) },
             scaled: size(600, 300), crop: rect(100, 0, 300, 300)),
        Case("offsets are clamped inside", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .anchor(.west, xOffset: 10_000, yOffset: 0) },
             scaled: size(600, 300), crop: rect(300, 0, 300, 300)),
        Case("focus point centres it", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .focusPoint(x: 0.4, y: 0.5) },
             scaled: size(600, 300), crop: rect(90, 0, 300, 300)),
        Case("focus point at the edge clamps", size(2000, 1000), { $0.resizingType = .fill; $0.width = 300; $0.height = 300; $0.gravity = .focusPoint(x: 1, y: 1) },
             scaled: size(600, 300), crop: rect(300, 0, 300, 300)),
        // rotation: the box is swapped before the resize, the canvas after.
        // A 100x300 box turned is 300x100 before the turn: fit gives 200x100, shown 100x200.
        Case("rotate 90 swaps the box", size(2000, 1000), { $0.width = 100; $0.height = 300; $0.rotate = 90 },
             scaled: size(200, 100), crop: rect(0, 0, 200, 100)),
        Case("rotate 90 fill", size(2000, 1000), { $0.resizingType = .fill; $0.width = 100; $0.height = 300; $0.rotate = 90 },
             scaled: size(300, 150), crop: rect(0, 24, 300, 100)),
        Case("rotate 180 keeps the box", size(2000, 1000), { $0.width = 100; $0.rotate = 180 },
             scaled: size(100, 50), crop: rect(0, 0, 100, 50)),
        // extend
        Case("extend pads to the box at the centre", size(200, 100), { $0.width = 400; $0.height = 400; $0.extend = true },
             scaled: size(200, 100), crop: rect(0, 0, 200, 100), canvas: size(400, 400), placement: rect(100, 150, 200, 100)),
        Case("extend at south-east", size(200, 100), { $0.width = 400; $0.height = 400; $0.extend = true; $0.extendGravity = .anchor(.southEast, xOffset: 0, yOffset: 0) },
             scaled: size(200, 100), crop: rect(0, 0, 200, 100), canvas: size(400, 400), placement: rect(200, 300, 200, 100)),
        Case("extend at north-west with offsets", size(200, 100), { $0.width = 400; $0.height = 400; $0.extend = true; $0.extendGravity = .anchor(.northWest, xOffset: 10, yOffset: 20) },
             scaled: size(200, 100), crop: rect(0, 0, 200, 100), canvas: size(400, 400), placement: rect(10, 20, 200, 100)),
        Case("extend after fit pads the short side", size(2000, 1000), { $0.width = 300; $0.height = 300; $0.extend = true },
             scaled: size(300, 150), crop: rect(0, 0, 300, 150), canvas: size(300, 300), placement: rect(0, 76, 300, 150)),
        Case("extend with one side pads only that side", size(200, 100), { $0.width = 400; $0.extend = true },
             scaled: size(200, 100), crop: rect(0, 0, 200, 100), canvas: size(400, 100), placement: rect(100, 0, 200, 100)),
        Case("extend without a box does nothing", size(200, 100), { $0.extend = true },
             scaled: size(200, 100), crop: rect(0, 0, 200, 100)),
        Case("extend after a quarter turn uses the final orientation", size(200, 100), { $0.width = 400; $0.height = 400; $0.extend = true; $0.rotate = 90; $0.extendGravity = .anchor(.north, xOffset: 0, yOffset: 0) },
             scaled: size(200, 100), crop: rect(0, 0, 200, 100), canvas: size(400, 400), placement: rect(150, 0, 100, 200)),
    ]

    @Test(arguments: cases)
    func geometryFollowsImgproxysRules(_ geometryCase: Case) {
        let geometry = ResizeGeometry(source: geometryCase.source, options: geometryCase.options)
        #expect(geometry.scaledSize == geometryCase.scaled)
        #expect(geometry.crop == geometryCase.crop)
        #expect(geometry.canvasSize == geometryCase.canvas)
        #expect(geometry.placement == geometryCase.placement)
    }

    @Test(arguments: ProcessingOptions.ResizingType.allCases)
    func cropAndPlacementStayInsideForEveryType(_ type: ProcessingOptions.ResizingType) {
        for (width, height) in [(1, 1), (7, 3000), (3000, 7), (640, 480)] {
            for (boxWidth, boxHeight) in [(0, 0), (1, 1), (100, 0), (0, 100), (333, 77), (5000, 5000)] {
                for anchor in ProcessingOptions.Anchor.allCases {
                    var options = ProcessingOptions()
                    options.resizingType = type
                    options.width = boxWidth
                    options.height = boxHeight
                    options.extend = true
                    options.gravity = .anchor(anchor, xOffset: 13, yOffset: -29)
                    options.extendGravity = .anchor(anchor, xOffset: -5, yOffset: 1_000)
                    let geometry = ResizeGeometry(source: Self.size(width, height), options: options)
                    let crop = geometry.crop, scaled = geometry.scaledSize
                    let cropInside = crop.x >= 0 && crop.y >= 0 && crop.x + crop.width <= scaled.width && crop.y + crop.height <= scaled.height
                    let placed = geometry.placement, canvas = geometry.canvasSize
                    let placementInside = placed.x >= 0 && placed.y >= 0 && placed.x + placed.width <= canvas.width && placed.y + placed.height <= canvas.height
                    #expect(cropInside && crop.width >= 1 && crop.height >= 1, "\(type) \(width)x\(height) box \(boxWidth)x\(boxHeight) \(anchor): crop \(crop) in \(scaled)")
                    #expect(placementInside, "\(type) \(width)x\(height) box \(boxWidth)x\(boxHeight) \(anchor): \(placed) on \(canvas)")
                }
            }
        }
    }
}
