import Foundation
import Testing
@testable import WebImage

/// `webimage` on SVG and PDF: `info`, `decode` at a thumbnail size and a chosen page,
/// `encode`, and the lazy loading of librsvg and poppler: a run that never sees such a
/// file never loads them (the dynamic loader's own trace, `LD_DEBUG=libs`, says which
/// libraries a run opened).
@Suite struct VectorCommandLineTests {
    func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("webimage-vector-\(UUID().uuidString)-\(name)")
    }

    func corpusPath(_ name: String) -> String {
        Corpus.directory.appendingPathComponent(name).path
    }

    func info(_ path: String) throws -> [String: Any] {
        let result = try WebImageCommand.run("info", path, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func infoReportsSVGAndPDF() throws {
        let svg = try info(corpusPath("TestImage.svg"))
        #expect(svg["format"] as? String == "svg")
        #expect(svg["width"] as? Int == 131)
        #expect(svg["height"] as? Int == 76)
        let pdf = try info(corpusPath("TestImage.pdf"))
        #expect(pdf["format"] as? String == "pdf")
        #expect(pdf["width"] as? Int == 36)
        #expect(pdf["hasAlpha"] as? Bool == false)
    }

    @Test func decodeDrawsAnSVGAtTheThumbnailSize() throws {
        let output = temporaryFile("svg.png")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try WebImageCommand.run("decode", corpusPath("TestImage.svg"), "--thumbnail", "524x304", "-o", output.path)
        #expect(result.status == 0, "\(result.stderr)")
        let image = try CodersManager.shared.decode(Data(contentsOf: output))
        let reference = try SVGCoderTests.reference("svg-TestImage-524x304")
        #expect(image.pixels == reference)
    }

    @Test func decodeRendersTheChosenPDFPage() throws {
        let input = temporaryFile("three.pdf"), output = temporaryFile("page.png")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        try PDFDocuments.make(pages: (0..<3).map { .init(width: 20, height: 10, color: PDFDocuments.color(of: $0 * 100)) })
            .write(to: input)
        let result = try WebImageCommand.run("decode", input.path, "--page", "2", "-o", output.path)
        #expect(result.status == 0, "\(result.stderr)")
        let c = PDFDocuments.color(of: 200)
        #expect(try CodersManager.shared.decode(Data(contentsOf: output)).pixels[pixel: 10, 5]
                == RGBAColor(red: c.red, green: c.green, blue: c.blue, alpha: 255))
        let missing = try WebImageCommand.run("decode", input.path, "--page", "3", "-o", output.path + ".none")
        #expect(missing.status == 1)
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }

    @Test func encodeTurnsAPDFPageIntoAJPEG() throws {
        let output = temporaryFile("page.jpg")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try WebImageCommand.run("encode", corpusPath("TestImage.pdf"), "--format", "jpeg", "-o", output.path)
        #expect(result.status == 0, "\(result.stderr)")
        let image = try CodersManager.shared.decode(Data(contentsOf: output))
        #expect(image.format == .jpeg)
        #expect(image.size == ImageSize(width: 36, height: 36))
    }

    /// A library that cannot be opened (here an empty file found first on
    /// `LD_LIBRARY_PATH`, as dlopen fails for a missing one) makes the format unsupported:
    /// one line, status 1, no crash; other formats are unaffected.
    @Test func anUnloadableLibraryMakesTheFormatUnsupported() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-nolibs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["librsvg-2.so.2", "libpoppler-glib.so.8"] {
            try Data().write(to: folder.appendingPathComponent(name))
        }
        let environment = ["LD_LIBRARY_PATH": folder.path]
        for (file, format) in [("TestImage.svg", "svg"), ("TestImage.pdf", "pdf")] {
            let result = try WebImageCommand.run(["info", corpusPath(file)], environment: environment)
            #expect(result.status == 1)
            #expect(result.stderr == "webimage: error: unsupported format: \(format)\n")
        }
        #expect(try WebImageCommand.run(["info", corpusPath("TestImage.png")], environment: environment).status == 0)
    }

    /// The loader's trace names every library a run opens: a PNG's `info` opens neither
    /// librsvg nor poppler (nor cairo), an SVG's opens librsvg only, a PDF's poppler only.
    @Test func librsvgAndPopplerLoadOnlyWhenSuchAFileIsDecoded() throws {
        func loaded(_ file: String) throws -> String {
            let result = try WebImageCommand.run(["info", corpusPath(file)], environment: ["LD_DEBUG": "libs"])
            #expect(result.status == 0)
            return result.stderr
        }
        let png = try loaded("TestImage.png")
        #expect(png.contains("libpng16.so"), "the trace shows the libraries that are linked")
        #expect(!png.contains("librsvg"))
        #expect(!png.contains("libpoppler"))
        #expect(!png.contains("libcairo"))
        let svg = try loaded("TestImage.svg")
        #expect(svg.contains("librsvg-2.so.2"))
        #expect(!svg.contains("libpoppler"))
        let pdf = try loaded("TestImage.pdf")
        #expect(pdf.contains("libpoppler-glib.so.8"))
        #expect(!pdf.contains("librsvg"))
    }
}
