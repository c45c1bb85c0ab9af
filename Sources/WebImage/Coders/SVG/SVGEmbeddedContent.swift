import Foundation

/// The images an SVG embeds, checked before librsvg sees the document.
///
/// librsvg decodes an embedded raster at its own full size, through gdk-pixbuf, whatever
/// size it is drawn at: a 1 × 1 SVG of 900 bytes holding a PNG whose header claims
/// 30000 × 30000 took 7 GB and ten seconds to render, far past the pixel limit the render
/// size is held to. With no base file or URL, a `data:` URL is all librsvg can load, so:
/// - every `data:` in the document, however written (character references, entities, CSS
///   escapes, a tab or line break inside, in an attribute, CSS or a comment), is counted
///   (``SVGMarkupScanner/dataURLCount()``), and each must be the `href` of an `<image>` or
///   `<feImage>`: one anywhere else (`fill="url(data:…)"`, CSS, `<use>`, an XInclude, a
///   style sheet) would load a document this check never reads, and is refused;
/// - each such image must declare a raster type that gdk-pixbuf and the library read alike
///   (PNG, JPEG, GIF, BMP, TIFF), its bytes must be that format (gdk-pixbuf picks its loader
///   from the declared type, the library from the bytes), and it must fit its share of
///   ``ImageCoderOptions/pixelLimit`` (every frame counted), which the library's decoder
///   checks from the header before it allocates anything;
/// - a document in an encoding whose `<` is not the ASCII byte (UTF-16, UTF-7), and DTD
///   declarations that could make markup this reading does not see (a parameter or
///   external entity, an entity whose text holds markup or a reference) are refused.
///   Plain entities (`<!ENTITY ns "http://…">`, as Illustrator writes them) are expanded.
///
/// What cannot be measured is not rendered: an embedded SVG (gdk-pixbuf would draw it at
/// its own size), a type or format outside the list, a payload that does not decode.
enum SVGEmbeddedContent {
    /// The declared types an embedded image may have, and the format its bytes must be.
    static let rasterTypes: [String: ImageFormat] = [
        "image/png": .png, "image/jpeg": .jpeg, "image/jpg": .jpeg, "image/gif": .gif,
        "image/bmp": .bmp, "image/x-bmp": .bmp, "image/tiff": .tiff,
    ]

    /// Throws ``WebImageError/imageTooLarge(width:height:limit:)`` when an embedded image
    /// exceeds its share of `pixelLimit`, and ``WebImageError/badImageData(_:)`` for
    /// content that cannot be measured (see the type).
    static func check(_ document: Data, pixelLimit: Int) throws(WebImageError) {
        // Nothing to read: the coder says the document is empty.
        guard !document.isEmpty else { return }
        let bytes = [UInt8](document)
        // libxml2 reads a document that does not start with `<` as it guesses (EBCDIC,
        // whose `<` is 0x4C): only one whose markup this reading sees is rendered.
        var first = bytes[...]
        if first.starts(with: [0xEF, 0xBB, 0xBF]) { first = first.dropFirst(3) }
        guard first.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "<") else {
            throw .badImageData("SVG: a document that does not start with markup")
        }
        try checkEncoding(bytes)
        var scanner = SVGMarkupScanner(bytes: bytes)
        try scanner.scan()
        let images = scanner.imageReferences.compactMap { reference -> String? in
            let url = effectiveURL(reference.value)
            return url.lowercased().hasPrefix("data:") ? url : nil
        }
        // Cheap first: nothing to measure, and nothing anywhere else.
        guard try scanner.dataURLCount() == images.count else {
            throw .badImageData("SVG: a data: URL that is not an <image> or <feImage> href")
        }
        let share = max(1, pixelLimit / max(1, images.count))
        for url in images { try checkImage(url, pixelLimit: share) }
    }

    /// An `href` as librsvg's URL parser reads it: tabs and line breaks dropped anywhere,
    /// spaces and control characters trimmed from both ends.
    static func effectiveURL(_ value: String) -> String {
        let kept = value.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
        let spaceAndControls = CharacterSet(charactersIn: Unicode.Scalar(UInt8(0))...Unicode.Scalar(UInt8(0x20)))
        return String(String.UnicodeScalarView(kept)).trimmingCharacters(in: spaceAndControls)
    }

    /// One embedded image: base64 of a raster of a declared type its bytes agree with,
    /// measured against `pixelLimit` (its share). Read byte by byte, as librsvg's URL crates
    /// read it: a comma joined to the character before it (U+0600 and other "prepend"
    /// characters) is still the comma that ends the header. Only base64 is taken: in any
    /// other payload libxml2 turns a literal tab or line break into a space this reading
    /// would not see, and the bytes measured would not be the bytes decoded.
    private static func checkImage(_ url: String, pixelLimit: Int) throws(WebImageError) {
        let bytes = Array(url.utf8)
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), comma >= 5 else {
            throw .badImageData("SVG: an embedded data: URL without a comma")
        }
        let header = String(decoding: bytes[5..<comma], as: UTF8.self).lowercased()
        let parts = header.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let type = parts.first ?? ""
        guard let declared = rasterTypes[type] else {
            throw .badImageData("SVG: an embedded image of type \"\(type)\", which is not rendered")
        }
        guard parts.last == "base64" else { throw .badImageData("SVG: an embedded image that is not base64") }
        // Base64 skips ASCII white space, in librsvg's decoder as here.
        let body = bytes[(comma + 1)...].filter { ![0x20, 0x09, 0x0A, 0x0C, 0x0D].contains($0) }
        guard let payload = Data(base64Encoded: Data(body)) else {
            throw .badImageData("SVG: an embedded data: URL that does not decode")
        }
        guard ImageFormat(sniffing: payload) == declared else {
            throw .badImageData("SVG: an embedded image whose bytes are not the \(type) it declares")
        }
        // gdk-pixbuf draws every scan of a progressive JPEG in full: its cost grows with the
        // scans, far past what the library's one pass over them costs.
        if declared == .jpeg, isProgressiveJPEG(payload) {
            throw .badImageData("SVG: an embedded progressive JPEG, which is not rendered")
        }
        var options = ImageCoderOptions()
        options.pixelLimit = pixelLimit
        // A thumbnail of one pixel: the decoder checks the header's size (all frames
        // counted) against the limit before it allocates, and then draws next to nothing.
        options.thumbnailPixelSize = ImageSize(width: 1, height: 1)
        do {
            _ = try CodersManager.shared.decode(payload, options: options)
        } catch let error as WebImageError {
            if case .imageTooLarge = error { throw error }
            throw .badImageData("SVG: an embedded image that does not decode (\(error))")
        } catch {
            throw .badImageData("SVG: an embedded image that does not decode")
        }
    }

    /// Whether the JPEG's frame header is progressive (SOF2, SOF6, SOF10, SOF14). Fill bytes
    /// and markers without a length (TEM, RSTn) are stepped over, as libjpeg steps over
    /// them; a header this reading cannot follow counts as progressive (refused).
    private static func isProgressiveJPEG(_ data: Data) -> Bool {
        var index = data.startIndex + 2
        while index + 1 < data.endIndex {
            guard data[index] == 0xFF else { return true }
            let marker = data[index + 1]
            if marker == 0xFF || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                index += marker == 0xFF ? 1 : 2
                continue
            }
            if [0xC2, 0xC6, 0xCA, 0xCE].contains(marker) { return true }
            if [0xC0, 0xC1, 0xC3, 0xC5, 0xC7, 0xC9, 0xCB, 0xCD, 0xCF].contains(marker) { return false }
            guard marker != 0xDA, index + 3 < data.endIndex else { return true }
            index += 2 + (Int(data[index + 2]) << 8 | Int(data[index + 3]))
        }
        return true
    }

    /// Refuses what libxml2 would read differently from this reading: a NUL byte (UTF-16 or
    /// UTF-32), a declared encoding whose `<` is not the ASCII byte, and non-ASCII bytes in a
    /// declared single-byte encoding (libxml2 transcodes them to UTF-8, changing the bytes
    /// an embedded URL holds). The XML declaration is read whole, however long.
    private static func checkEncoding(_ bytes: [UInt8]) throws(WebImageError) {
        guard !bytes.contains(0) else { throw .badImageData("SVG: only UTF-8 and ASCII-compatible encodings are rendered") }
        var start = bytes[...]
        if start.starts(with: [0xEF, 0xBB, 0xBF]) { start = start.dropFirst(3) }
        guard start.starts(with: "<?xml".utf8) else { return }
        guard let end = start.firstRange(of: "?>".utf8) else { throw .badImageData("SVG: an unterminated XML declaration") }
        let declaration = String(decoding: start[..<end.lowerBound], as: UTF8.self).lowercased()
        guard let encoding = declaration.range(of: "encoding") else { return }
        let value = declaration[encoding.upperBound...].drop { " \t\r\n=\"'".contains($0) }
            .prefix { !" \t\r\n\"'".contains($0) }
        if ["utf-8", "utf8", "us-ascii", "ascii"].contains(String(value)) { return }
        guard value == "latin1" || value.hasPrefix("iso-8859-") || value.hasPrefix("windows-125"), bytes.allSatisfy({ $0 < 0x80 }) else {
            throw .badImageData("SVG: the encoding \(value) is not rendered (only UTF-8, or ASCII text under another name)")
        }
    }
}
