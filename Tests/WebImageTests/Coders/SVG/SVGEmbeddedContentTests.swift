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

    /// The reference as libxml2 hands it to librsvg: character references and plain
    /// entities expanded, attribute defaults from the DTD applied.
    @Test func aURLWrittenWithReferencesOrDefaultsIsMeasuredAsWell() {
        let escaped = "&#100;&#x61;ta:" + Self.bomb.dropFirst(5)
        Self.expectTooLarge(Self.document(#"<image width="1" height="1" xlink:href="\#(escaped)"/>"#), "character references")
        Self.expectTooLarge(
            Self.document(#"<image width="1" height="1" xlink:href="&bomb;"/>"#, doctype: #"<!DOCTYPE svg [<!ENTITY bomb "\#(Self.bomb)">]>"#),
            "a plain entity")
        Self.expectTooLarge(
            Self.document(#"<image width="1" height="1"/>"#, doctype: #"<!DOCTYPE svg [<!ATTLIST image xlink:href CDATA "\#(Self.bomb)">]>"#),
            "an attribute default")
    }

    /// Two images, each under the limit, that together are over it.
    @Test func theEmbeddedImagesShareTheLimit() {
        let large = Self.dataURL(ServerImages.pngClaiming(width: 8_000, height: 8_000))
        Self.expectTooLarge(Self.document(#"<image xlink:href="\#(large)"/><image xlink:href="\#(large)"/>"#), "64 MP twice under 100 MP")
    }

    @Test func anEmbeddedDocumentIsCheckedInTurn() {
        let inner = Self.document(#"<image width="1" height="1" xlink:href="\#(Self.bomb)"/>"#)
        Self.expectTooLarge(Self.document(#"<image width="1" height="1" xlink:href="\#(Self.dataURL(inner, type: "image/svg+xml"))"/>"#), "nested SVG")
        Self.expectTooLarge(
            Self.document(#"<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="\#(Self.dataURL(inner, type: "application/xml"))"/>"#),
            "XInclude")
    }

    /// What could hide a URL from the reading is refused rather than trusted.
    @Test(arguments: [
        ("an entity holding markup", document("&img;", doctype: #"<!DOCTYPE svg [<!ENTITY img "&#60;image xlink:href='x'/>">]>"#)),
        ("a parameter entity", document("", doctype: #"<!DOCTYPE svg [<!ENTITY % p "x"> %p;]>"#)),
        ("an external entity", document("&e;", doctype: #"<!DOCTYPE svg [<!ENTITY e SYSTEM "file:///etc/passwd">]>"#)),
        ("UTF-7", Data(#"<?xml version="1.0" encoding="UTF-7"?><svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>"#.utf8)),
        ("UTF-16", Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>"#.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
        ("an image format that cannot be measured", document(#"<image xlink:href="data:image/x-xpixmap;base64,\#(Data("/* XPM */ static char *x[] = {\"1 1 1 1\"};".utf8).base64EncodedString())"/>"#)),
        ("a data: URL that does not decode", document(#"<image xlink:href="data:image/png;base64,!!!"/>"#)),
    ] as [(String, Data)])
    func contentThatCannotBeMeasuredIsRefused(_ name: String, document: Data) {
        #expect(throws: WebImageError.self, "\(name)") { _ = try Self.decode(document) }
    }

    /// Ordinary documents are untouched: Illustrator's namespace entities, comments and
    /// CDATA holding markup-like text, references to the document's own elements.
    @Test func ordinaryDocumentsStillRender() throws {
        let doctype = #"<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [<!ENTITY ns_svg "http://www.w3.org/2000/svg">]>"#
        let body = #"""
        <!-- <image xlink:href="data:image/png;base64,AAAA"/> -->
        <style><![CDATA[ rect { fill: #00f } /* <image> */ ]]></style>
        <defs><rect id="r" width="4" height="4"/></defs><use xlink:href="#r"/>
        """#
        let image = try Self.decode(Self.document(body, doctype: doctype))
        #expect(image.pixels[pixel: 1, 1].blue > 200)
    }
}
