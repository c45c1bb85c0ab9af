import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// Every processing option through a real server and a real origin, checked on the pixels
/// of the decoded response: sizes per resizing type, gravity, extend, rotation, blur,
/// flattening, quality, format, dpr, page, auto-rotation, max_bytes, animation.
@Suite struct ImageServerOptionsTests {
    /// The origin's sources: synthetic quadrant images (red top-left, green top-right,
    /// blue bottom-left, yellow bottom-right) and a few corpus files.
    static func routes() throws -> [String: LoopbackServer.Reply] {
        [
            "/q.png": .ok(try ServerImages.quadrantsPNG(width: 400, height: 200), contentType: "image/png"),
            "/p.png": .ok(try ServerImages.quadrantsPNG(width: 200, height: 400), contentType: "image/png"),
            "/half.png": .ok(try ServerImages.quadrantsPNG(width: 200, height: 100), contentType: "image/png"),
            "/mid.png": .ok(try ServerImages.quadrantsPNG(width: 80, height: 40), contentType: "image/png"),
            "/small.png": .ok(try ServerImages.quadrantsPNG(width: 40, height: 20), contentType: "image/png"),
            "/alpha.png": .ok(try ServerImages.halfTransparentPNG(width: 40, height: 20), contentType: "image/png"),
            "/photo.png": .ok(try Corpus.data("TestImage.png"), contentType: "image/png"),
            "/anim.gif": .ok(try Corpus.data("TestImage.gif"), contentType: "image/gif"),
            "/o6.jpg": .ok(try Data(contentsOf: Corpus.fixtures.appendingPathComponent("jpeg/orientation-6.jpg")), contentType: "image/jpeg"),
        ]
    }

    /// ``routes()`` built once for every test (each encodes its sources).
    static let sharedRoutes = Result { try routes() }

    /// Runs `body` against a server whose origin serves ``routes()``.
    func withServer<T: Sendable>(
        _ change: (inout ImageServer.Configuration) -> Void = { _ in },
        _ body: (LoopbackServer, RunningImageServer) async throws -> T
    ) async throws -> T {
        try await RunningImageServer.with(origin: try Self.sharedRoutes.get(), .testing(change), body: body)
    }

    /// GETs `path`, requires a 200, and decodes the body.
    func fetchImage(_ server: RunningImageServer, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> (RunningImageServer.Reply, Image) {
        let reply = try await server.request(path)
        try #require(reply.status == 200, "\(path): \(reply.status) \(reply.text)", sourceLocation: sourceLocation)
        return (reply, try CodersManager.shared.decode(reply.body))
    }

    // MARK: Sizes

    struct SizeCase: Sendable, CustomTestStringConvertible {
        var options: [String]
        var width: Int
        var height: Int
        var testDescription: String { options.joined(separator: "/") + " → \(width)x\(height)" }
    }

    /// On the 200×100 source.
    static let sizeCases: [SizeCase] = [
        SizeCase(options: ["rs:fit:50:50"], width: 50, height: 25),
        SizeCase(options: ["resize:fill:50:50"], width: 50, height: 50),
        SizeCase(options: ["rs:fill:300:300"], width: 200, height: 100),
        SizeCase(options: ["rs:fill-down:300:300"], width: 100, height: 100),
        SizeCase(options: ["rs:force:50:50"], width: 50, height: 50),
        SizeCase(options: ["rs:force:50"], width: 50, height: 100),  // imgproxy: the side not given stays the source's
        SizeCase(options: ["rs:auto:50:40"], width: 50, height: 40),
        SizeCase(options: ["rs:auto:40:50"], width: 40, height: 20),
        SizeCase(options: ["rs:fit:400:400:1"], width: 400, height: 200),
        SizeCase(options: ["rs:fit:400:400:0"], width: 200, height: 100),
        SizeCase(options: ["rs:fit:400:400"], width: 200, height: 100),
        SizeCase(options: ["enlarge:1", "width:400"], width: 400, height: 200),
        SizeCase(options: ["el:t", "h:150"], width: 300, height: 150),
        SizeCase(options: ["w:50"], width: 50, height: 25),
        SizeCase(options: ["h:25"], width: 50, height: 25),
        SizeCase(options: ["size:50:50"], width: 50, height: 25),
        SizeCase(options: ["s:50:50:0:1"], width: 50, height: 50),
        SizeCase(options: ["rt:fill", "s:50:50"], width: 50, height: 50),
        SizeCase(options: ["resizing_type:force", "w:30", "h:30"], width: 30, height: 30),
        SizeCase(options: ["w:50", "dpr:2"], width: 100, height: 50),
        SizeCase(options: ["rs:fit:50:50:0:1"], width: 50, height: 50),
        SizeCase(options: ["rs:fill:50:50", "ex:1"], width: 50, height: 50),
        SizeCase(options: ["rot:90"], width: 100, height: 200),
        SizeCase(options: ["rot:90", "w:50"], width: 50, height: 100),
        SizeCase(options: ["rotate:90", "rs:fill:50:25"], width: 50, height: 25),
    ]

    @Test(arguments: sizeCases)
    func resultHasTheSizeTheOptionsAskFor(_ sizeCase: SizeCase) async throws {
        try await withServer { origin, server in
            let (_, image) = try await fetchImage(server, ImageURL.plain(origin.url("/half.png"), sizeCase.options, extension: "png"))
            #expect(image.size == ImageSize(width: sizeCase.width, height: sizeCase.height))
        }
    }

    @Test func forceStretchesEachQuadrantIntoItsOwnQuarter() async throws {
        try await withServer { origin, server in
            let (_, image) = try await fetchImage(server, ImageURL.plain(origin.url("/q.png"), ["rs:force:100:100"], extension: "png"))
            #expect(ServerImages.isClose(image.pixels[pixel: 25, 25], to: ServerImages.red))
            #expect(ServerImages.isClose(image.pixels[pixel: 75, 25], to: ServerImages.green))
            #expect(ServerImages.isClose(image.pixels[pixel: 25, 75], to: ServerImages.blue))
            #expect(ServerImages.isClose(image.pixels[pixel: 75, 75], to: ServerImages.yellow))
        }
    }

    // MARK: Gravity

    enum Column: Sendable { case west, center, east }
    enum Row: Sendable { case north, center, south }

    struct GravityCase: Sendable, CustomTestStringConvertible {
        var gravity: String
        var column: Column
        var row: Row
        var testDescription: String { gravity }
    }

    static let gravityCases: [GravityCase] = [
        GravityCase(gravity: "g:ce", column: .center, row: .center),
        GravityCase(gravity: "g:no", column: .center, row: .north),
        GravityCase(gravity: "g:so", column: .center, row: .south),
        GravityCase(gravity: "g:ea", column: .east, row: .center),
        GravityCase(gravity: "g:we", column: .west, row: .center),
        GravityCase(gravity: "g:noea", column: .east, row: .north),
        GravityCase(gravity: "g:nowe", column: .west, row: .north),
        GravityCase(gravity: "g:soea", column: .east, row: .south),
        GravityCase(gravity: "gravity:sowe", column: .west, row: .south),
        GravityCase(gravity: "g:fp:0:0", column: .west, row: .north),
        GravityCase(gravity: "g:fp:1:1", column: .east, row: .south),
        GravityCase(gravity: "g:fp:0.5:0.5", column: .center, row: .center),
    ]

    /// A 200×200 fill of the 400×200 source keeps its height, so the gravity picks the
    /// columns; of the 200×400 source, the rows. Samples at a quarter and three quarters
    /// tell which half of each quadrant boundary the crop kept.
    @Test(arguments: gravityCases)
    func gravityCropsTheNamedPart(_ gravityCase: GravityCase) async throws {
        try await withServer { origin, server in
            let (_, wide) = try await fetchImage(server, ImageURL.plain(origin.url("/q.png"), ["rs:fill:200:200", gravityCase.gravity], extension: "png"))
            try #require(wide.size == ImageSize(width: 200, height: 200))
            let (left, right) = (wide.pixels[pixel: 50, 50], wide.pixels[pixel: 150, 50])
            switch gravityCase.column {
            case .west:
                #expect(ServerImages.isClose(left, to: ServerImages.red) && ServerImages.isClose(right, to: ServerImages.red), "\(left) \(right)")
            case .center:
                #expect(ServerImages.isClose(left, to: ServerImages.red) && ServerImages.isClose(right, to: ServerImages.green), "\(left) \(right)")
            case .east:
                #expect(ServerImages.isClose(left, to: ServerImages.green) && ServerImages.isClose(right, to: ServerImages.green), "\(left) \(right)")
            }
            let (_, tall) = try await fetchImage(server, ImageURL.plain(origin.url("/p.png"), ["rs:fill:200:200", gravityCase.gravity], extension: "png"))
            try #require(tall.size == ImageSize(width: 200, height: 200))
            let (top, bottom) = (tall.pixels[pixel: 50, 50], tall.pixels[pixel: 50, 150])
            switch gravityCase.row {
            case .north:
                #expect(ServerImages.isClose(top, to: ServerImages.red) && ServerImages.isClose(bottom, to: ServerImages.red), "\(top) \(bottom)")
            case .center:
                #expect(ServerImages.isClose(top, to: ServerImages.red) && ServerImages.isClose(bottom, to: ServerImages.blue), "\(top) \(bottom)")
            case .south:
                #expect(ServerImages.isClose(top, to: ServerImages.blue) && ServerImages.isClose(bottom, to: ServerImages.blue), "\(top) \(bottom)")
            }
        }
    }

    @Test func gravityOffsetsMoveTheCropAwayFromTheAnchoredEdge() async throws {
        try await withServer { origin, server in
            // East with 50 px: the crop spans source x 150..<350 instead of 200..<400, so
            // its 40th column is still red (source x 190) where plain east is all green.
            let (_, offset) = try await fetchImage(server, ImageURL.plain(origin.url("/q.png"), ["rs:fill:200:200", "g:ea:50:0"], extension: "png"))
            #expect(ServerImages.isClose(offset.pixels[pixel: 40, 50], to: ServerImages.red))
            #expect(ServerImages.isClose(offset.pixels[pixel: 60, 50], to: ServerImages.green))
            // West with 50 px: source x 50..<250, column 140 is source 190 (red), column 160 green.
            let (_, west) = try await fetchImage(server, ImageURL.plain(origin.url("/q.png"), ["rs:fill:200:200", "g:we:50"], extension: "png"))
            #expect(ServerImages.isClose(west.pixels[pixel: 140, 50], to: ServerImages.red))
            #expect(ServerImages.isClose(west.pixels[pixel: 160, 50], to: ServerImages.green))
        }
    }

    // MARK: Extend and background

    struct ExtendCase: Sendable, CustomTestStringConvertible {
        var gravity: String
        /// Top-left corner of the 40×20 image on the 100×100 canvas.
        var x: Int
        var y: Int
        var testDescription: String { gravity }
    }

    static let extendCases: [ExtendCase] = [
        ExtendCase(gravity: "ex:1", x: 30, y: 40),
        ExtendCase(gravity: "ex:1:ce", x: 30, y: 40),
        ExtendCase(gravity: "ex:1:noea", x: 60, y: 0),
        ExtendCase(gravity: "extend:1:sowe", x: 0, y: 80),
        ExtendCase(gravity: "ex:1:no", x: 30, y: 0),
        ExtendCase(gravity: "ex:1:ea", x: 60, y: 40),
        ExtendCase(gravity: "ex:1:nowe:5:5", x: 5, y: 5),
    ]

    @Test(arguments: extendCases)
    func extendPadsWithTheBackgroundAndPlacesTheImageAtItsGravity(_ extendCase: ExtendCase) async throws {
        try await withServer { origin, server in
            let path = ImageURL.plain(origin.url("/small.png"), ["rs:fit:100:100", extendCase.gravity, "bg:255:0:255"], extension: "png")
            let (_, image) = try await fetchImage(server, path)
            try #require(image.size == ImageSize(width: 100, height: 100))
            let (x, y) = (extendCase.x, extendCase.y)
            #expect(image.pixels[pixel: x + 5, y + 5] == ServerImages.red)
            #expect(image.pixels[pixel: x + 35, y + 5] == ServerImages.green)
            #expect(image.pixels[pixel: x + 5, y + 15] == ServerImages.blue)
            #expect(image.pixels[pixel: x + 35, y + 15] == ServerImages.yellow)
            let magenta = RGBAColor(red: 255, green: 0, blue: 255)
            // Just outside each side of the image, where there is canvas.
            if x > 0 { #expect(image.pixels[pixel: x - 1, y + 10] == magenta) }
            if x + 40 < 100 { #expect(image.pixels[pixel: x + 40, y + 10] == magenta) }
            if y > 0 { #expect(image.pixels[pixel: x + 20, y - 1] == magenta) }
            if y + 20 < 100 { #expect(image.pixels[pixel: x + 20, y + 20] == magenta) }
        }
    }

    @Test func extendWithoutBackgroundPadsTransparentInPNGAndWhiteInJPEG() async throws {
        try await withServer { origin, server in
            let (_, png) = try await fetchImage(server, ImageURL.plain(origin.url("/small.png"), ["rs:fit:100:100:0:1"], extension: "png"))
            #expect(png.pixels[pixel: 5, 5].alpha == 0)
            #expect(png.pixels[pixel: 50, 50].alpha == 255)
            let (_, jpeg) = try await fetchImage(server, ImageURL.plain(origin.url("/small.png"), ["rs:fit:100:100:0:1"], extension: "jpg"))
            #expect(ServerImages.isClose(jpeg.pixels[pixel: 5, 5], to: .white, tolerance: 8))
        }
    }

    @Test(arguments: ["bg:255:0:0", "background:ff0000", "bg:FF0000"])
    func backgroundFlattensTransparencyIntoJPEG(_ background: String) async throws {
        try await withServer { origin, server in
            let (reply, image) = try await fetchImage(server, ImageURL.plain(origin.url("/alpha.png"), [background], extension: "jpg"))
            #expect(reply.header("Content-Type") == "image/jpeg")
            #expect(ServerImages.isClose(image.pixels[pixel: 5, 10], to: ServerImages.red, tolerance: 12))
            #expect(ServerImages.isClose(image.pixels[pixel: 35, 10], to: ServerImages.blue, tolerance: 12))
        }
    }

    @Test func withoutBackgroundJPEGFlattensOntoWhiteAndPNGKeepsAlpha() async throws {
        try await withServer { origin, server in
            let (_, jpeg) = try await fetchImage(server, ImageURL.plain(origin.url("/alpha.png"), [], extension: "jpg"))
            #expect(ServerImages.isClose(jpeg.pixels[pixel: 5, 10], to: .white, tolerance: 8))
            let (_, png) = try await fetchImage(server, ImageURL.plain(origin.url("/alpha.png"), []))
            #expect(png.pixels[pixel: 5, 10].alpha == 0)
            // With a background the PNG is flattened too.
            let (_, flattened) = try await fetchImage(server, ImageURL.plain(origin.url("/alpha.png"), ["bg:0:255:0"]))
            #expect(flattened.pixels[pixel: 5, 10] == ServerImages.green)
        }
    }

    // MARK: Rotation, blur

    /// Colours at the four corners, clockwise turns of the 400×200 quadrants.
    static let rotationCases: [(String, [RGBAColor])] = [
        ("rot:0", [ServerImages.red, ServerImages.green, ServerImages.blue, ServerImages.yellow]),
        ("rot:90", [ServerImages.blue, ServerImages.red, ServerImages.yellow, ServerImages.green]),
        ("rotate:180", [ServerImages.yellow, ServerImages.blue, ServerImages.green, ServerImages.red]),
        ("rot:270", [ServerImages.green, ServerImages.yellow, ServerImages.red, ServerImages.blue]),
        ("rot:-90", [ServerImages.green, ServerImages.yellow, ServerImages.red, ServerImages.blue]),
        ("rot:450", [ServerImages.blue, ServerImages.red, ServerImages.yellow, ServerImages.green]),
    ]

    @Test(arguments: rotationCases)
    func rotateTurnsClockwise(_ option: String, corners: [RGBAColor]) async throws {
        try await withServer { origin, server in
            let (_, image) = try await fetchImage(server, ImageURL.plain(origin.url("/q.png"), [option], extension: "png"))
            let quarter = option != "rot:0" && option != "rotate:180"
            #expect(image.size == (quarter ? ImageSize(width: 200, height: 400) : ImageSize(width: 400, height: 200)))
            let (w, h) = (image.size.width, image.size.height)
            let seen = [image.pixels[pixel: 5, 5], image.pixels[pixel: w - 6, 5], image.pixels[pixel: 5, h - 6], image.pixels[pixel: w - 6, h - 6]]
            #expect(seen == corners)
        }
    }

    @Test func blurSmoothsEdgesAndLeavesFlatAreas() async throws {
        try await withServer { origin, server in
            let (_, sharp) = try await fetchImage(server, ImageURL.plain(origin.url("/mid.png"), [], extension: "png"))
            let (_, blurred) = try await fetchImage(server, ImageURL.plain(origin.url("/mid.png"), ["bl:2"], extension: "png"))
            let (_, spelled) = try await fetchImage(server, ImageURL.plain(origin.url("/mid.png"), ["blur:2"], extension: "png"))
            #expect(blurred.size == sharp.size)
            #expect(blurred.pixels != sharp.pixels)
            #expect(spelled.pixels == blurred.pixels)
            // At the red/green boundary (x = 40) the sharp image is pure red one pixel to the
            // left; the blurred one has mixed in green.
            #expect(sharp.pixels[pixel: 39, 10] == ServerImages.red)
            let edge = blurred.pixels[pixel: 39, 10]
            #expect(edge.green > 40 && edge.red > 100, "\(edge)")
            // Ten pixels (five standard deviations) from every edge the colour stays.
            #expect(ServerImages.isClose(blurred.pixels[pixel: 20, 10], to: ServerImages.red, tolerance: 2))
        }
    }

    // MARK: Encoding

    @Test func lowerQualityGivesASmallerJPEG() async throws {
        try await withServer { origin, server in
            let low = try await fetchImage(server, ImageURL.plain(origin.url("/photo.png"), ["q:10"], extension: "jpg")).0.body
            let high = try await fetchImage(server, ImageURL.plain(origin.url("/photo.png"), ["quality:90"], extension: "jpg")).0.body
            #expect(low.count < high.count / 2, "q10 \(low.count) B, q90 \(high.count) B")
        }
    }

    @Test func configuredQualityAppliesWhenTheURLGivesNone() async throws {
        let low = try await withServer({ $0.quality = 10 }) { origin, server in
            try await fetchImage(server, ImageURL.plain(origin.url("/photo.png"), [], extension: "jpg")).0.body
        }
        let high = try await withServer({ $0.quality = 95 }) { origin, server in
            // q:0 means "the server's default".
            try await fetchImage(server, ImageURL.plain(origin.url("/photo.png"), ["q:0"], extension: "jpg")).0.body
        }
        #expect(low.count < high.count / 2, "quality 10: \(low.count) B, 95: \(high.count) B")
    }

    struct FormatCase: Sendable, CustomTestStringConvertible {
        var name: String
        var path: @Sendable (URL) -> String
        var format: ImageFormat
        var testDescription: String { name }
    }

    static let formatCases: [FormatCase] = [
        FormatCase(name: "plain @webp", path: { ImageURL.plain($0, ["w:20"], extension: "webp") }, format: .webp),
        FormatCase(name: "plain @jpg", path: { ImageURL.plain($0, ["w:20"], extension: "jpg") }, format: .jpeg),
        FormatCase(name: "plain @gif", path: { ImageURL.plain($0, ["w:20"], extension: "gif") }, format: .gif),
        FormatCase(name: "plain @bmp", path: { ImageURL.plain($0, ["w:20"], extension: "bmp") }, format: .bmp),
        FormatCase(name: "base64 .png", path: { ImageURL.base64($0, ["w:20"], extension: "png") }, format: .png),
        FormatCase(name: "base64 .webp", path: { ImageURL.base64($0, ["w:20"], extension: "webp") }, format: .webp),
        FormatCase(name: "f:jpg", path: { ImageURL.plain($0, ["w:20", "f:jpg"]) }, format: .jpeg),
        FormatCase(name: "format:webp", path: { ImageURL.base64($0, ["w:20", "format:webp"]) }, format: .webp),
        FormatCase(name: "ext:png", path: { ImageURL.plain($0, ["w:20", "ext:png"]) }, format: .png),
        FormatCase(name: "no format keeps the source's", path: { ImageURL.plain($0, ["w:20"]) }, format: .png),
    ]

    @Test(arguments: formatCases)
    func formatOrExtensionChoosesTheEncoder(_ formatCase: FormatCase) async throws {
        try await withServer { origin, server in
            let (reply, image) = try await fetchImage(server, formatCase.path(origin.url("/small.png")))
            #expect(ImageFormat(sniffing: reply.body) == formatCase.format)
            #expect(reply.header("Content-Type") == formatCase.format.mimeType)
            #expect(image.size == ImageSize(width: 20, height: 10))
        }
    }

    @Test func bothURLGrammarsGiveTheSameBytes() async throws {
        try await withServer { origin, server in
            let options = ["rs:fill:30:30", "g:nowe", "bg:10:20:30"]
            let plain = try await fetchImage(server, ImageURL.plain(origin.url("/small.png"), options, extension: "png")).0.body
            let base64 = try await fetchImage(server, ImageURL.base64(origin.url("/small.png"), options, extension: "png")).0.body
            #expect(plain == base64)
            #expect(!plain.isEmpty)
        }
    }

    @Test func maxBytesKeepsAJPEGUnderTheLimit() async throws {
        try await withServer { origin, server in
            let unlimited = try await fetchImage(server, ImageURL.plain(origin.url("/photo.png"), ["q:100"], extension: "jpg")).0.body
            let limit = 6_000
            try #require(unlimited.count > limit, "the unlimited JPEG (\(unlimited.count) B) must exceed the limit for the test to mean anything")
            let (reply, image) = try await fetchImage(server, ImageURL.plain(origin.url("/photo.png"), ["q:100", "mb:\(limit)"], extension: "jpg"))
            #expect(reply.body.count <= limit)
            #expect(image.size == ImageSize(width: 300, height: 300))
            let spelled = try await fetchImage(server, ImageURL.plain(origin.url("/photo.png"), ["q:100", "max_bytes:\(limit)"], extension: "jpg")).0.body
            #expect(spelled.count <= limit)
        }
    }

    // MARK: Source handling

    @Test func dprMultipliesTheBox() async throws {
        try await withServer { origin, server in
            let (_, single) = try await fetchImage(server, ImageURL.plain(origin.url("/q.png"), ["w:100"], extension: "png"))
            let (_, double) = try await fetchImage(server, ImageURL.plain(origin.url("/q.png"), ["w:100", "dpr:2"], extension: "png"))
            let (_, half) = try await fetchImage(server, ImageURL.plain(origin.url("/q.png"), ["rs:fill:100:100", "dpr:0.5"], extension: "png"))
            #expect(single.size.width == 100)
            #expect(double.size == ImageSize(width: 200, height: 100))
            #expect(half.size == ImageSize(width: 50, height: 50))
        }
    }

    @Test func autoRotateTurnsAnEXIFOrientation6JPEGUprightUnlessTurnedOff() async throws {
        // orientation-6.jpg is stored 32×48 and shown 48×32 with a red block top-left.
        try await withServer { origin, server in
            let (_, upright) = try await fetchImage(server, ImageURL.plain(origin.url("/o6.jpg"), [], extension: "png"))
            #expect(upright.size == ImageSize(width: 48, height: 32))
            let corner = upright.pixels[pixel: 3, 3]
            #expect(corner.red > 180 && corner.green < 80 && corner.blue < 80, "\(corner)")
            let (_, explicit) = try await fetchImage(server, ImageURL.plain(origin.url("/o6.jpg"), ["ar:1"], extension: "png"))
            #expect(explicit.size == ImageSize(width: 48, height: 32))
            let (_, stored) = try await fetchImage(server, ImageURL.plain(origin.url("/o6.jpg"), ["auto_rotate:0"], extension: "png"))
            #expect(stored.size == ImageSize(width: 32, height: 48))
            // A box is fitted to the upright image: 24 wide is half of 48.
            let (_, boxed) = try await fetchImage(server, ImageURL.plain(origin.url("/o6.jpg"), ["w:24"], extension: "png"))
            #expect(boxed.size == ImageSize(width: 24, height: 16))
        }
    }

    @Test func pagePicksOneFrameOfAnAnimationAsAStill() async throws {
        let source = try CodersManager.shared.decode(Corpus.data("TestImage.gif"))
        try #require(source.frameCount > 2)
        try #require(source.frames[1].pixels != source.frames[0].pixels)
        try await withServer { origin, server in
            let (_, page1) = try await fetchImage(server, ImageURL.plain(origin.url("/anim.gif"), ["pg:1"], extension: "png"))
            #expect(page1.frameCount == 1)
            #expect(page1.pixels == source.frames[1].pixels)
            let (_, page0) = try await fetchImage(server, ImageURL.plain(origin.url("/anim.gif"), ["page:0"], extension: "png"))
            #expect(page0.pixels == source.frames[0].pixels)
            // Kept as GIF, one page is still one frame.
            let (_, gif) = try await fetchImage(server, ImageURL.plain(origin.url("/anim.gif"), ["pg:2"]))
            #expect(gif.frameCount == 1)
        }
    }

    @Test(arguments: [("", ImageFormat.gif), ("webp", .webp)])
    func animatedGIFStaysAnimated(_ ext: String, format: ImageFormat) async throws {
        let frames = try CodersManager.shared.decode(Corpus.data("TestImage.gif")).frameCount
        try #require(frames > 1)
        try await withServer { origin, server in
            let (reply, image) = try await fetchImage(server, ImageURL.plain(origin.url("/anim.gif"), ["w:25"], extension: ext.isEmpty ? nil : ext))
            #expect(ImageFormat(sniffing: reply.body) == format)
            #expect(image.frameCount == frames)
            #expect(image.size == ImageSize(width: 25, height: 25))
        }
    }

    @Test func animationIntoAFormatThatCannotAnimateKeepsTheFirstFrame() async throws {
        let source = try CodersManager.shared.decode(Corpus.data("TestImage.gif"))
        try await withServer { origin, server in
            let (_, image) = try await fetchImage(server, ImageURL.plain(origin.url("/anim.gif"), [], extension: "png"))
            #expect(image.frameCount == 1)
            #expect(image.pixels == source.frames[0].pixels)
        }
    }

    @Test func cachebusterAndStripMetadataAreAccepted() async throws {
        try await withServer { origin, server in
            let (_, plain) = try await fetchImage(server, ImageURL.plain(origin.url("/small.png"), [], extension: "png"))
            for options in [["cb:abc"], ["cachebuster:123"], ["sm:1"], ["strip_metadata:true"], ["cb:"]] {
                let (_, image) = try await fetchImage(server, ImageURL.plain(origin.url("/small.png"), options, extension: "png"))
                #expect(image.pixels == plain.pixels, "\(options)")
            }
        }
    }
}
