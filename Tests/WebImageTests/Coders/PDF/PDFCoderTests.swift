import Foundation
import Testing
@testable import WebImage

/// PDFCoder against poppler's own pdftocairo (Fixtures/vector/make_fixtures.sh), and on
/// documents the tests write (PDFDocuments): the chosen page of a thousand, pages too large
/// to render refused before allocating.
@Suite struct PDFCoderTests {
    static func reference(_ name: String) throws -> PixelBuffer {
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("vector/\(name).png"))
        return try PNGCoder().decode(data, options: ImageCoderOptions()).pixels
    }

    static func decode(_ data: Data, page: Int = 0, thumbnail: ImageSize? = nil) throws -> Image {
        var options = ImageCoderOptions()
        options.pageIndex = page
        options.thumbnailPixelSize = thumbnail
        return try PDFCoder().decode(data, options: options)
    }

    /// Not among the shared manager's coders (poppler decodes a page's images at full size
    /// with no limit): a URL that returns a PDF is refused; a manager given the coder
    /// renders it.
    @Test func decodesTheCorpusPDFLikePdftocairo() throws {
        let data = try Corpus.data("TestImage.pdf")
        #expect(CodersManager.shared.decoder(for: data) == nil)
        #expect(throws: WebImageError.self) { try CodersManager.shared.decode(data) }
        let trusting = CodersManager(coders: CodersManager.builtInCodersWithDocuments)
        #expect(trusting.decoder(for: data) is PDFCoder)
        let image = try trusting.decode(data)
        #expect(image.format == .pdf)
        // A 36×36-point page, one pixel a point.
        #expect(image.size == ImageSize(width: 36, height: 36))
        #expect(!image.hasAlpha)
        #expect(!image.isThumbnail)
        #expect(image.pixels == (try Self.reference("pdf-TestImage-36x36")))
    }

    @Test func rendersAThumbnailAsVectorsAtTheRequestedSize() throws {
        let image = try Self.decode(Corpus.data("TestImage.pdf"), thumbnail: ImageSize(width: 144, height: 144))
        #expect(image.size == ImageSize(width: 144, height: 144))
        #expect(image.isThumbnail)
        #expect(image.pixels == (try Self.reference("pdf-TestImage-144x144")))
    }

    /// Any page of a thousand, told apart by its colour; a page past the end is an error.
    @Test func rendersTheChosenPageOfAThousand() throws {
        let pages = (0..<1000).map { PDFDocuments.Page(width: 20, height: 10, color: PDFDocuments.color(of: $0)) }
        let data = PDFDocuments.make(pages: pages)
        for index in [0, 1, 517, 999] {
            let image = try Self.decode(data, page: index)
            let c = PDFDocuments.color(of: index)
            #expect(image.size == ImageSize(width: 20, height: 10))
            #expect(image.pixels[pixel: 10, 5] == RGBAColor(red: c.red, green: c.green, blue: c.blue, alpha: 255), "page \(index)")
        }
        #expect(throws: WebImageError.badImageData("PDF has 1000 pages, no page 1000")) { try Self.decode(data, page: 1000) }
        #expect(throws: WebImageError.badImageData("PDF has 1000 pages, no page -1")) { try Self.decode(data, page: -1) }
    }

    @Test func theSizeIsTheChosenPagesOwn() throws {
        let data = PDFDocuments.make(pages: [
            .init(width: 30, height: 20, color: (255, 0, 0)), .init(width: 15.5, height: 40, color: (0, 0, 255)),
        ])
        #expect(try Self.decode(data).size == ImageSize(width: 30, height: 20))
        let second = try Self.decode(data, page: 1)
        #expect(second.size == ImageSize(width: 16, height: 40))
        #expect(second.pixels[pixel: 5, 20] == RGBAColor(red: 0, green: 0, blue: 255, alpha: 255))
    }

    /// 200×200 inches is 14400×14400 points: refused from the page size, or drawn at the
    /// thumbnail's size when one is asked for.
    @Test func aPageOf200InchesSquareIsRefusedOrBounded() throws {
        let data = PDFDocuments.make(pages: [.init(width: 14400, height: 14400, color: (0, 255, 0))])
        #expect(throws: WebImageError.imageTooLarge(width: 14400, height: 14400, limit: ImageCoderOptions().pixelLimit)) {
            try Self.decode(data)
        }
        let thumbnail = try Self.decode(data, thumbnail: ImageSize(width: 300, height: 300))
        #expect(thumbnail.size == ImageSize(width: 300, height: 300))
        #expect(thumbnail.pixels[pixel: 150, 150] == RGBAColor(red: 0, green: 255, blue: 0, alpha: 255))
    }

    @Test func inputLargerThanTheCapIsRefusedBeforeParsing() throws {
        let data = try Corpus.data("TestImage.pdf")
        #expect(throws: WebImageError.responseTooLarge(limit: 100)) { try PDFCoder(maxDataSize: 100).decode(data, options: ImageCoderOptions()) }
    }

    /// librsvg, poppler and cairo under concurrent decodes (each has its own document and
    /// canvas, but they share fonts and caches): every result equals the serial one.
    @Test func svgAndPDFDecodeConcurrentlyAsTheyDoAlone() async throws {
        let svg = try Corpus.data("TestImage.svg"), pdf = try Corpus.data("TestImage.pdf")
        let options = {
            var options = ImageCoderOptions()
            options.thumbnailPixelSize = ImageSize(width: 300, height: 300)
            return options
        }()
        let expectedSVG = try SVGCoder().decode(svg, options: options).pixels
        let expectedPDF = try PDFCoder().decode(pdf, options: options).pixels
        let matches = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<24 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        return try SVGCoder().decode(svg, options: options).pixels == expectedSVG
                    }
                    return try PDFCoder().decode(pdf, options: options).pixels == expectedPDF
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(matches == 24)
    }

    @Test func isNeverAnEncoder() {
        #expect(!PDFCoder().canEncode(to: .pdf))
        #expect(!CodersManager.shared.canEncode(to: .pdf))
    }
}
