import Foundation
import Testing
@testable import WebImage

/// SVGCoder against librsvg's own rsvg-convert (Fixtures/vector/make_fixtures.sh): the same
/// pixels at the intrinsic size and at thumbnail sizes (drawn as vectors, which a scaled
/// bitmap would not match), sizes from the document's units or viewBox, and untrusted
/// documents: huge canvases refused before allocating, external files and URLs never read.
@Suite struct SVGCoderTests {
    static func reference(_ name: String) throws -> PixelBuffer {
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("vector/\(name).png"))
        return try PNGCoder().decode(data, options: ImageCoderOptions()).pixels
    }

    static func svg(_ text: String) -> Data { Data(text.utf8) }

    static func decode(_ data: Data, thumbnail: ImageSize? = nil, keepRatio: Bool = true) throws -> Image {
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = thumbnail
        options.preserveAspectRatio = keepRatio
        return try SVGCoder().decode(data, options: options)
    }

    /// Not among the shared manager's coders (librsvg has no bound on what a document
    /// makes it allocate): a manager given it decodes the corpus SVG.
    @Test func decodesTheCorpusSVGLikeRsvgConvert() throws {
        let data = try Corpus.data("TestImage.svg")
        #expect(CodersManager.shared.decoder(for: data) == nil)
        let documents = CodersManager(coders: CodersManager.builtInCodersWithDocuments)
        #expect(documents.decoder(for: data) is SVGCoder)
        let image = try documents.decode(data)
        #expect(image.format == .svg)
        // No width or height, a viewBox of 131×76: that is its size.
        #expect(image.size == ImageSize(width: 131, height: 76))
        #expect(!image.isThumbnail)
        #expect(image.hasAlpha)
        #expect(image.pixels == (try Self.reference("svg-TestImage-131x76")))
        // The W3C logo is blue (#005A9C) on a transparent background.
        #expect(image.pixels[pixel: 0, 0].alpha == 0)
    }

    /// Rendered as vectors at the box size: pixel for pixel what librsvg draws at that size.
    @Test(arguments: [
        (ImageSize(width: 524, height: 304), true, "svg-TestImage-524x304"),
        (ImageSize(width: 1000, height: 304), true, "svg-TestImage-524x304"),
        (ImageSize(width: 200, height: 50), false, "svg-TestImage-200x50"),
    ])
    func rendersThumbnailsAsVectorsAtTheRequestedSize(box: ImageSize, keepRatio: Bool, reference: String) throws {
        let image = try Self.decode(Corpus.data("TestImage.svg"), thumbnail: box, keepRatio: keepRatio)
        let expected = try Self.reference(reference)
        #expect(image.size == expected.size)
        #expect(image.isThumbnail)
        #expect(image.pixels == expected)
    }

    @Test func fitsASmallerBoxKeepingTheAspectRatio() throws {
        let image = try Self.decode(Corpus.data("TestImage.svg"), thumbnail: ImageSize(width: 262, height: 262))
        #expect(image.size == ImageSize(width: 262, height: 152))
        var covering = ImageCoderOptions()
        covering.thumbnailPixelSize = ImageSize(width: 262, height: 262)
        covering.thumbnailCoversBox = true
        #expect(try SVGCoder().decode(Corpus.data("TestImage.svg"), options: covering).size == ImageSize(width: 452, height: 262))
    }

    /// `width="1in" height="0.5in"` at 96 dpi, translucent fills unpremultiplied exactly.
    @Test func sizesFromAbsoluteUnitsAndKeepsTranslucency() throws {
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("vector/units.svg"))
        let image = try Self.decode(data)
        #expect(image.size == ImageSize(width: 96, height: 48))
        #expect(image.pixels == (try Self.reference("svg-units-96x48")))
        #expect(image.pixels[pixel: 90, 2].alpha == 128)
    }

    /// Internal entities (Adobe Illustrator declares its namespaces as entities) are
    /// expanded, in attributes too; the DTD named in the DOCTYPE is never fetched. The
    /// fixture is also a fuzz seed: libxml2 leaks each declaration's value buffer under
    /// librsvg (Fuzz/lsan.supp), which every decode-svg run then meets.
    @Test func expandsInternalEntities() throws {
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("vector/entities.svg"))
        let image = try Self.decode(data)
        #expect(image.size == ImageSize(width: 20, height: 10))
        #expect(image.pixels[pixel: 5, 5] == RGBAColor(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(image.pixels[pixel: 15, 5].alpha == 0)
    }

    @Test func aDocumentWithoutSizeOrViewBoxGetsTheBrowsersDefault() throws {
        let image = try Self.decode(Self.svg(#"<svg xmlns="http://www.w3.org/2000/svg"><rect width="10" height="10"/></svg>"#))
        #expect(image.size == ImageSize(width: 300, height: 150))
        #expect(image.pixels[pixel: 5, 5] == RGBAColor(red: 0, green: 0, blue: 0, alpha: 255))
        #expect(image.pixels[pixel: 50, 50].alpha == 0)
    }

    /// Refused from the declared size, before a byte of canvas exists; with a thumbnail
    /// asked for, drawn at the thumbnail's size instead.
    @Test func aHundredThousandPixelSquareCanvasIsRefusedOrBounded() throws {
        let huge = Self.svg(#"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="100000" height="100000" fill="red"/></svg>"#)
        #expect(throws: WebImageError.imageTooLarge(width: 100_000, height: 100_000, limit: ImageCoderOptions().pixelLimit)) {
            try Self.decode(huge)
        }
        let thumbnail = try Self.decode(huge, thumbnail: ImageSize(width: 256, height: 256))
        #expect(thumbnail.size == ImageSize(width: 256, height: 256))
        #expect(thumbnail.pixels[pixel: 128, 128] == RGBAColor(red: 255, green: 0, blue: 0, alpha: 255))
        // A cover box of an extreme aspect ratio is bounded by the pixel limit too.
        let sliver = Self.svg(#"<svg xmlns="http://www.w3.org/2000/svg" width="1" height="100000"/>"#)
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 1000, height: 1000)
        options.thumbnailCoversBox = true
        #expect(throws: WebImageError.imageTooLarge(width: 1000, height: 100_000_000, limit: options.pixelLimit)) {
            try SVGCoder().decode(sliver, options: options)
        }
    }

    @Test func inputLargerThanTheCapIsRefusedBeforeParsing() throws {
        let data = try Corpus.data("TestImage.svg")
        #expect(throws: WebImageError.responseTooLarge(limit: 100)) { try SVGCoder(maxDataSize: 100).decode(data, options: ImageCoderOptions()) }
    }

    /// Images, `<use>`, XInclude and CSS imports pointing at a file beside the test (by
    /// absolute path, `file:` URL and relative name) and at a loopback port: no file is
    /// opened, no connection made, and nothing is drawn where the images would be.
    @Test func neverReadsExternalFilesOrURLs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("svg-external-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let red = try PNGCoder().encode(Image(pixels: PixelBuffer(width: 4, height: 4, filling: RGBAColor(red: 255, green: 0, blue: 0, alpha: 255))),
                                        as: .png, options: ImageCoderOptions())
        try red.write(to: folder.appendingPathComponent("secret.png"))
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg"><rect id="r" width="10" height="10" fill="red"/></svg>"#.utf8)
            .write(to: folder.appendingPathComponent("other.svg"))
        try Data("rect { fill: red }".utf8).write(to: folder.appendingPathComponent("style.css"))
        let listener = try BacklogListener()
        let watch = try FileOpenWatch(directory: folder)
        let png = folder.appendingPathComponent("secret.png").path
        let document = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
                 xmlns:xi="http://www.w3.org/2001/XInclude" width="60" height="10">
              <style>@import url("file://\(folder.path)/style.css");</style>
              <image x="0" width="10" height="10" xlink:href="\(png)"/>
              <image x="10" width="10" height="10" href="file://\(png)"/>
              <image x="20" width="10" height="10" href="secret.png"/>
              <image x="30" width="10" height="10" href="http://127.0.0.1:\(listener.port)/secret.png"/>
              <use x="40" href="file://\(folder.path)/other.svg#r"/>
              <use x="50" href="http://127.0.0.1:\(listener.port)/other.svg#r"/>
              <xi:include href="file://\(folder.path)/style.css" parse="text"/>
            </svg>
            """
        // Rendered or refused, what matters is what it touched.
        let image = try? Self.decode(Self.svg(document))
        #expect(watch.openedFiles() == [])
        #expect(listener.acceptPending() == 0)
        if let image {
            #expect(image.size == ImageSize(width: 60, height: 10))
            #expect(image.pixels.bytes.allSatisfy { $0 == 0 }, "something external was drawn")
        }
        // The witnesses work: reading the file through the watched folder is seen.
        _ = try Data(contentsOf: folder.appendingPathComponent("secret.png"))
        #expect(watch.openedFiles().contains("secret.png"))
    }

    @Test func externalXMLEntitiesAreRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("svg-entity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("secret".utf8).write(to: folder.appendingPathComponent("secret.txt"))
        let watch = try FileOpenWatch(directory: folder)
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE svg [ <!ENTITY secret SYSTEM "file://\(folder.path)/secret.txt"> ]>
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&secret;</text></svg>
            """
        #expect(throws: WebImageError.self) { try Self.decode(Self.svg(document)) }
        #expect(watch.openedFiles() == [])
    }

    @Test func isNeverAnEncoder() {
        #expect(!SVGCoder().canEncode(to: .svg))
        #expect(!CodersManager.shared.canEncode(to: .svg))
    }
}
