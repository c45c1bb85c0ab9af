import Foundation
import Testing
@testable import WebImage

/// Images an SVG embeds as `data:` URLs, which librsvg decodes at their full size whatever
/// size they are drawn at: a 1 × 1 document of 900 bytes whose PNG claimed 30000 × 30000
/// took 7 GB to render. They are measured first, however the URL is written.
@Suite struct SVGEmbeddedContentTests {
    static func document(_ body: String, doctype: String = "") -> Data {
        Data("""
        <?xml version="1.0" encoding="UTF-8"?>\(doctype)
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="4" height="4">\(body)</svg>
        """.utf8)
    }

    static func dataURL(_ bytes: Data, type: String = "image/png") -> String {
        "data:\(type);base64," + bytes.base64EncodedString()
    }

    /// A PNG whose header claims 30000 × 30000 (a few dozen bytes).
    static let bomb = dataURL(ServerImages.pngClaiming(width: 30_000, height: 30_000))

    static func decode(_ document: Data, pixelLimit: Int = 100_000_000) throws -> Image {
        var options = ImageCoderOptions()
        options.pixelLimit = pixelLimit
        return try SVGCoder().decode(document, options: options)
    }

    static func expectTooLarge(_ document: Data, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation, performing: { _ = try decode(document) }, throws: { error in
            guard case WebImageError.imageTooLarge = error else {
                Issue.record("\(comment): \(error)", sourceLocation: sourceLocation)
                return false
            }
            return true
        })
    }

    @Test func anEmbeddedImageIsDrawn() throws {
        let red = try CodersManager.shared.encode(Image(pixels: PixelBuffer(width: 2, height: 2, filling: RGBAColor(red: 255, green: 0, blue: 0, alpha: 255))), as: .png)
        let image = try Self.decode(Self.document(#"<image width="4" height="4" xlink:href="\#(Self.dataURL(red))"/>"#))
        let pixel = image.pixels[pixel: 2, 2]
        #expect(pixel.red > 200 && pixel.green < 50 && pixel.alpha > 200, "\(pixel)")
    }

    @Test func anImageClaimingMoreThanThePixelLimitIsRefusedBeforeItIsDecoded() {
        Self.expectTooLarge(Self.document(#"<image width="1" height="1" xlink:href="\#(Self.bomb)"/>"#), "xlink:href")
        Self.expectTooLarge(Self.document(#"<image width="1" height="1" href="\#(Self.bomb)"/>"#), "SVG 2 href")
        Self.expectTooLarge(Self.document(#"<filter id="f"><feImage href="\#(Self.bomb)"/></filter>"#), "feImage")
        Self.expectTooLarge(Self.document(#"<s:image xmlns:s="http://www.w3.org/2000/svg" h:href="\#(Self.bomb)" xmlns:h="http://www.w3.org/1999/xlink"/>"#), "prefixed names")
    }

    /// A URL written with character references is read as libxml2 hands it to librsvg,
    /// and a tab or line break inside it is dropped as librsvg's URL parser drops it.
    @Test func aURLWrittenWithReferencesIsMeasuredAsWell() {
        let escaped = "&#100;&#x61;ta:" + Self.bomb.dropFirst(5)
        Self.expectTooLarge(Self.document(#"<image width="1" height="1" xlink:href="\#(escaped)"/>"#), "character references")
        let split = "d&#9;ata:" + Self.bomb.dropFirst(5)
        Self.expectTooLarge(Self.document(#"<image width="1" height="1" xlink:href="\#(split)"/>"#), "a tab inside")
    }

    /// Two images, each under the limit, that together are over it.
    @Test func theEmbeddedImagesShareTheLimit() {
        let large = Self.dataURL(ServerImages.pngClaiming(width: 8_000, height: 8_000))
        Self.expectTooLarge(Self.document(#"<image xlink:href="\#(large)"/><image xlink:href="\#(large)"/>"#), "64 MP twice under 100 MP")
    }

    /// Every way around the first version of the check that a review found (each made
    /// librsvg take 600 MB to 1.6 GB; Fixtures/vector/svg-bypass): refused, quickly, and
    /// without decoding the image.
    @Test(arguments: try FileManager.default.contentsOfDirectory(
        atPath: Corpus.fixtures.appendingPathComponent("vector/svg-bypass").path
    ).filter { $0.hasSuffix(".svg") }.sorted())
    func aWayAroundTheCheckIsRefused(_ file: String) throws {
        let data = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("vector/svg-bypass/\(file)"))
        let start = ContinuousClock.now
        #expect(throws: WebImageError.self) { _ = try Self.decode(data) }
        #expect(ContinuousClock.now - start < TestTime.prompt)
    }

    /// References to an entity holding a large `data:` URL, many times over: the reading is
    /// held to the document's own size (it expanded every one, and asked for gigabytes).
    @Test func entityExpansionIsBounded() {
        let payload = Self.dataURL(Data(repeating: 0x41, count: 50_000), type: "text/plain")
        let references = String(repeating: "&e;", count: 40_000)
        let document = Self.document(#"<a href="\#(references)"/>"#, doctype: #"<!DOCTYPE svg [<!ENTITY e "\#(payload)">]>"#)
        let start = ContinuousClock.now
        #expect(throws: WebImageError.self) { _ = try Self.decode(document) }
        #expect(ContinuousClock.now - start < TestTime.prompt)
    }

    @Test func anEmbeddedDocumentIsNotRendered() {
        let inner = Self.document(#"<rect width="12000" height="12000"/>"#)
        #expect(throws: WebImageError.self) {
            _ = try Self.decode(Self.document(#"<image width="1" height="1" xlink:href="\#(Self.dataURL(inner, type: "image/svg+xml"))"/>"#))
        }
    }

    /// What could hide a URL from the reading, or cannot be measured, is refused.
    @Test(arguments: [
        ("an entity holding markup", document("&img;", doctype: #"<!DOCTYPE svg [<!ENTITY img "&#60;image xlink:href='x'/>">]>"#)),
        ("a parameter entity", document("", doctype: #"<!DOCTYPE svg [<!ENTITY % p "x"> %p;]>"#)),
        ("an external entity", document("&e;", doctype: #"<!DOCTYPE svg [<!ENTITY e SYSTEM "file:///etc/passwd">]>"#)),
        ("an entity holding a data: URL", document(#"<image xlink:href="&e;"/>"#, doctype: #"<!DOCTYPE svg [<!ENTITY e "\#(bomb)">]>"#)),
        ("an attribute default", document(#"<image width="1" height="1"/>"#, doctype: #"<!DOCTYPE svg [<!ATTLIST image xlink:href CDATA "\#(bomb)">]>"#)),
        ("UTF-7", Data(#"<?xml version="1.0" encoding="UTF-7"?><svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>"#.utf8)),
        ("UTF-16", Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>"#.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
        ("a type gdk-pixbuf reads and the library does not", document(#"<image xlink:href="data:image/x-xpixmap;base64,\#(Data("/* XPM */".utf8).base64EncodedString())"/>"#)),
        ("no declared type", document(#"<image xlink:href="data:;base64,\#(ServerImages.pngClaiming(width: 9, height: 9).base64EncodedString())"/>"#)),
        ("a data: URL that does not decode", document(#"<image xlink:href="data:image/png;base64,!!!"/>"#)),
        ("a data: URL in a comment", document(#"<!-- data:image/png;base64,AAAA -->"#)),
    ] as [(String, Data)])
    func contentThatCannotBeMeasuredIsRefused(_ name: String, document: Data) {
        #expect(throws: WebImageError.self, "\(name)") { _ = try Self.decode(document) }
    }

    /// Ordinary documents are untouched: Illustrator's namespace entities, comments and
    /// CDATA holding markup-like text, references to the document's own elements.
    @Test func ordinaryDocumentsStillRender() throws {
        let doctype = #"<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [<!ENTITY ns_svg "http://www.w3.org/2000/svg">]>"#
        let body = #"""
        <!-- <image xlink:href="#r"/> -->
        <style><![CDATA[ rect { fill: #00f } /* <image> */ ]]></style>
        <defs><rect id="r" width="4" height="4"/></defs><use xlink:href="#r"/>
        """#
        let image = try Self.decode(Self.document(body, doctype: doctype))
        #expect(image.pixels[pixel: 1, 1].blue > 200)
    }
}
