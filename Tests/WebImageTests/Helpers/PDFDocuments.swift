import Foundation

/// Small, valid PDF documents written by the tests: many pages, odd page sizes, each page
/// filled with a colour of its own so a test can tell which page was rendered.
///
/// ```swift
/// let data = PDFDocuments.make(pages: (0..<1000).map { .init(width: 100, height: 50, color: PDFDocuments.color(of: $0)) })
/// ```
enum PDFDocuments {
    /// One page: its MediaBox size in points and the colour that fills it.
    struct Page {
        var width: Double
        var height: Double
        var color: (red: UInt8, green: UInt8, blue: UInt8)
    }

    /// A colour told apart for each page index below 4096 (four bits a channel, scaled to
    /// 0…255 so it survives the renderer exactly).
    static func color(of index: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        (UInt8((index >> 8 & 15) * 17), UInt8((index >> 4 & 15) * 17), UInt8((index & 15) * 17))
    }

    /// A document of `pages`: a catalogue, one flat page tree, a page object and a content
    /// stream per page, and a cross-reference table with exact offsets.
    static func make(pages: [Page]) -> Data {
        var body = "%PDF-1.4\n"
        var offsets: [Int] = []
        func object(_ text: String) {
            offsets.append(body.utf8.count)
            body += "\(offsets.count) 0 obj\n\(text)\nendobj\n"
        }
        object("<< /Type /Catalog /Pages 2 0 R >>")
        let kids = pages.indices.map { "\(3 + 2 * $0) 0 R" }.joined(separator: " ")
        object("<< /Type /Pages /Kids [\(kids)] /Count \(pages.count) >>")
        for (index, page) in pages.enumerated() {
            object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(page.width) \(page.height)] /Contents \(4 + 2 * index) 0 R >>")
            let c = page.color
            let fill = String(format: "%.6f %.6f %.6f rg 0 0 %g %g re f", Double(c.red) / 255, Double(c.green) / 255,
                              Double(c.blue) / 255, page.width, page.height)
            object("<< /Length \(fill.utf8.count) >>\nstream\n\(fill)\nendstream")
        }
        let xref = body.utf8.count
        body += "xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { body += String(format: "%010d 00000 n \n", offset) }
        body += "trailer\n<< /Size \(offsets.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(body.utf8)
    }
}
