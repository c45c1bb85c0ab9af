import Foundation

/// The documents and images an SVG embeds as `data:` URLs, checked before librsvg sees the
/// document.
///
/// librsvg decodes an embedded raster at its own full size, through gdk-pixbuf, whatever
/// size it is drawn at: a 1 × 1 SVG of 900 bytes holding a PNG whose header says
/// 30000 × 30000 took 7 GB and ten seconds to render, far past the pixel limit the render
/// size is held to. So every `href` (any element's: `<image>`, `<feImage>`, `<use>`, an
/// XInclude) that is a `data:` URL is read here first:
/// - an image in a format the library decodes must fit in an equal share of
///   ``ImageCoderOptions/pixelLimit`` (every frame counted), so that all of them together
///   fit in it; the library's own decoder checks that from the header, before it
///   allocates anything;
/// - an embedded document (SVG, or XML an XInclude would parse) is checked the same way,
///   at most ``maximumDepth`` levels down;
/// - anything else (a format gdk-pixbuf reads and the library does not, such as TGA or
///   XPM; a payload that does not decode) is refused: what cannot be measured is not
///   rendered.
///
/// What could hide a URL from this reading is refused too: a document in an encoding where
/// `<` is not the ASCII byte (UTF-16, UTF-7), and DTD declarations that could make markup
/// or a default `href` this reading does not see (a parameter or external entity, an
/// entity whose text holds markup or a reference, an attribute default holding `data:`).
/// Plain entities (`<!ENTITY ns "http://…">`, as Illustrator writes them) are expanded.
enum SVGEmbeddedContent {
    /// How deep documents embedded in documents are followed.
    static let maximumDepth = 3

    /// Throws ``WebImageError/imageTooLarge(width:height:limit:)`` when an embedded image
    /// exceeds its share of `pixelLimit`, and ``WebImageError/badImageData(_:)`` for
    /// content that cannot be measured (see the type).
    static func check(_ document: Data, pixelLimit: Int, depth: Int = 0) throws(WebImageError) {
        let bytes = [UInt8](document)
        try checkEncoding(bytes)
        var scanner = Scanner(bytes: bytes)
        try scanner.scan()
        let embedded = scanner.references.filter { $0.lowercased().contains("data:") }
        let share = max(1, pixelLimit / max(1, embedded.count))
        // Other references load nothing: librsvg has no base file or URL to resolve them.
        for reference in embedded {
            let value = reference.trimmingCharacters(in: .whitespacesAndNewlines)
            // A `data:` further in is no URL librsvg would follow either, but it is not
            // guessed at.
            guard value.lowercased().hasPrefix("data:") else { throw .badImageData("SVG: an href that is not a plain data: URL") }
            let payload: Data
            do {
                payload = try DataURLLoader.payload(of: value)
            } catch {
                throw .badImageData("SVG: an embedded data: URL that does not decode")
            }
            try checkEmbedded(payload, pixelLimit: share, depth: depth)
        }
    }

    /// One embedded payload: an image measured against `pixelLimit` (its share), or a
    /// document checked in turn, its own embedded images sharing that share.
    private static func checkEmbedded(_ payload: Data, pixelLimit: Int, depth: Int) throws(WebImageError) {
        let format = ImageFormat(sniffing: payload)
        if format == .svg || (format == .undefined && startsWithMarkup(payload)) {
            guard depth < maximumDepth else { throw .badImageData("SVG: documents embedded more than \(maximumDepth) deep") }
            return try check(payload, pixelLimit: pixelLimit, depth: depth + 1)
        }
        guard format != .undefined, format != .pdf else {
            throw .badImageData("SVG: an embedded image in a format that cannot be measured")
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

    private static func startsWithMarkup(_ payload: Data) -> Bool {
        var rest = payload.prefix(4096)
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        return rest.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "<")
    }

    /// Refuses what libxml2 would read in an encoding whose `<` is not the ASCII byte: a
    /// NUL byte (UTF-16 or UTF-32) or a declared encoding outside the ASCII-compatible ones.
    private static func checkEncoding(_ bytes: [UInt8]) throws(WebImageError) {
        guard !bytes.contains(0) else { throw .badImageData("SVG: only UTF-8 and ASCII-compatible encodings are rendered") }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self).lowercased()
        guard head.hasPrefix("<?xml") || head.hasPrefix("\u{FEFF}<?xml"),
              let declaration = head.range(of: "?>").map({ head[..<$0.lowerBound] }),
              let encoding = declaration.range(of: "encoding") else { return }
        let value = declaration[encoding.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" || $0 == "\t" }
            .prefix { $0 != "\"" && $0 != "'" && $0 != " " }
        let compatible = ["utf-8", "utf8", "us-ascii", "ascii", "latin1"]
        guard compatible.contains(String(value)) || value.hasPrefix("iso-8859-") || value.hasPrefix("windows-125") else {
            throw .badImageData("SVG: the encoding \(value) is not rendered")
        }
    }

    /// Reads the markup of a document: the DTD's entities (refusing those that could hide
    /// markup) and every `href` value, references expanded.
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0
        var entities: [String: String] = [:]
        /// Every `href` (or `prefix:href`) value, and every DTD attribute default that names
        /// a `data:` URL.
        var references: [String] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func scan() throws(WebImageError) {
            while let open = next(UInt8(ascii: "<")) {
                position = open + 1
                if starts(with: "!--") {
                    try skip(past: "-->")
                } else if starts(with: "![CDATA[") {
                    try skip(past: "]]>")
                } else if starts(with: "?") {
                    try skip(past: "?>")
                } else if starts(with: "!DOCTYPE") {
                    try readDoctype()
                } else if starts(with: "!") {
                    throw .badImageData("SVG: a declaration outside the DTD")
                } else if starts(with: "/") {
                    try skip(past: ">")
                } else {
                    try readStartTag()
                }
            }
        }

        private func next(_ byte: UInt8) -> Int? {
            bytes[position...].firstIndex(of: byte)
        }

        private func starts(with text: String) -> Bool {
            bytes[position...].starts(with: text.utf8)
        }

        private mutating func skip(past text: String) throws(WebImageError) {
            let pattern = Array(text.utf8)
            var index = position
            while index + pattern.count <= bytes.count {
                if bytes[index] == pattern[0], bytes[index..<index + pattern.count].elementsEqual(pattern) {
                    position = index + pattern.count
                    return
                }
                index += 1
            }
            throw .badImageData("SVG: unterminated markup")
        }

        private mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        /// A name (element, attribute, entity): up to a space, `=`, `>`, `/` or a quote.
        private mutating func readName() -> String {
            let start = position
            while position < bytes.count, ![0x20, 0x09, 0x0A, 0x0D, 0x3D, 0x3E, 0x2F, 0x22, 0x27, 0x5B, 0x5D].contains(bytes[position]) {
                position += 1
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        /// A quoted literal, its quotes dropped (references not expanded).
        private mutating func readQuoted() throws(WebImageError) -> String {
            guard position < bytes.count, bytes[position] == 0x22 || bytes[position] == 0x27 else {
                throw .badImageData("SVG: an attribute or entity without a quoted value")
            }
            let quote = bytes[position]
            position += 1
            guard let end = next(quote) else { throw .badImageData("SVG: an unterminated quoted value") }
            defer { position = end + 1 }
            return String(decoding: bytes[position..<end], as: UTF8.self)
        }

        private mutating func readStartTag() throws(WebImageError) {
            _ = readName()
            while true {
                skipSpace()
                guard position < bytes.count else { throw .badImageData("SVG: an unterminated element") }
                if bytes[position] == UInt8(ascii: ">") {
                    position += 1
                    return
                }
                if bytes[position] == UInt8(ascii: "/") {
                    position += 1
                    continue
                }
                let name = readName()
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                    throw .badImageData("SVG: an attribute without a value")
                }
                position += 1
                skipSpace()
                let value = try readQuoted()
                if name == "href" || name.hasSuffix(":href") { references.append(try expanded(value)) }
            }
        }

        /// `<!DOCTYPE name [external id] [internal subset]>`: entities are kept when they
        /// are plain text, and refused otherwise; attribute defaults that name a `data:`
        /// URL are checked as `href` values are.
        private mutating func readDoctype() throws(WebImageError) {
            while position < bytes.count, bytes[position] != UInt8(ascii: "["), bytes[position] != UInt8(ascii: ">") {
                if bytes[position] == 0x22 || bytes[position] == 0x27 { _ = try readQuoted() } else { position += 1 }
            }
            guard position < bytes.count else { throw .badImageData("SVG: an unterminated DOCTYPE") }
            guard bytes[position] == UInt8(ascii: "[") else {
                position += 1
                return
            }
            position += 1
            while true {
                skipSpace()
                guard position < bytes.count else { throw .badImageData("SVG: an unterminated DTD") }
                if bytes[position] == UInt8(ascii: "]") {
                    try skip(past: ">")
                    return
                }
                if starts(with: "<!--") {
                    try skip(past: "-->")
                } else if starts(with: "<!ENTITY") {
                    position += 8
                    try readEntity()
                } else if starts(with: "<!ATTLIST") || starts(with: "<!ELEMENT") || starts(with: "<!NOTATION") {
                    try readDeclaration()
                } else if starts(with: "<?") {
                    try skip(past: "?>")
                } else {
                    throw .badImageData("SVG: DTD content that is not rendered (a parameter entity reference?)")
                }
            }
        }

        private mutating func readEntity() throws(WebImageError) {
            skipSpace()
            guard position < bytes.count, bytes[position] != UInt8(ascii: "%") else {
                throw .badImageData("SVG: a parameter entity")
            }
            let name = readName()
            skipSpace()
            guard position < bytes.count, bytes[position] == 0x22 || bytes[position] == 0x27 else {
                throw .badImageData("SVG: an external entity")
            }
            let value = try readQuoted()
            guard !value.contains("<"), !value.contains("&"), !value.contains("%") else {
                throw .badImageData("SVG: an entity whose text holds markup or a reference")
            }
            entities[name] = value
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
                throw .badImageData("SVG: a malformed entity declaration")
            }
            position += 1
        }

        /// An `ATTLIST`, `ELEMENT` or `NOTATION` declaration, up to its `>`; a quoted
        /// literal that names a `data:` URL is checked as an `href` would be.
        private mutating func readDeclaration() throws(WebImageError) {
            while position < bytes.count, bytes[position] != UInt8(ascii: ">") {
                if bytes[position] == 0x22 || bytes[position] == 0x27 {
                    let literal = try expanded(try readQuoted())
                    if literal.lowercased().contains("data:") { references.append(literal) }
                } else {
                    position += 1
                }
            }
            guard position < bytes.count else { throw .badImageData("SVG: an unterminated DTD declaration") }
            position += 1
        }

        /// `value` with character references, the predefined entities and the document's
        /// plain entities replaced, as libxml2 gives it to librsvg.
        private func expanded(_ value: String) throws(WebImageError) -> String {
            guard value.contains("&") else { return value }
            var result = ""
            var rest = Substring(value)
            while let ampersand = rest.firstIndex(of: "&") {
                result += rest[..<ampersand]
                guard let semicolon = rest[ampersand...].firstIndex(of: ";") else {
                    throw .badImageData("SVG: an unterminated reference")
                }
                let name = rest[rest.index(after: ampersand)..<semicolon]
                result += try replacement(of: name)
                rest = rest[rest.index(after: semicolon)...]
            }
            return result + rest
        }

        private func replacement(of name: Substring) throws(WebImageError) -> String {
            switch name {
            case "lt": return "<"
            case "gt": return ">"
            case "amp": return "&"
            case "quot": return "\""
            case "apos": return "'"
            default: break
            }
            if name.hasPrefix("#") {
                let digits = name.dropFirst()
                let code = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
                guard let code, let scalar = Unicode.Scalar(code) else { throw .badImageData("SVG: a malformed character reference") }
                return String(Character(scalar))
            }
            guard let value = entities[String(name)] else { throw .badImageData("SVG: a reference to an undeclared entity") }
            return value
        }
    }
}
