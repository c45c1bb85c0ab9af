/// Reads an SVG document's markup as far as ``SVGEmbeddedContent`` needs it: the DTD's
/// entities (refusing those that could hide markup), the `href` of every `<image>` and
/// `<feImage>` (the elements librsvg loads a raster for), and a normalised view of the whole
/// text in which any `data:` URL, however written, can be counted.
///
/// Not an XML parser: it follows libxml2 only where a difference could hide a URL, and
/// refuses what it does not follow. Every step moves forward; the expanded text is held to
/// ``expansionLimit``.
struct SVGMarkupScanner {
    /// An `href` of an element that loads an image, references expanded.
    struct ImageReference {
        var element: String
        var value: String
    }

    private let bytes: [UInt8]
    private var position = 0
    /// The DTD's entities, each plain text.
    private(set) var entities: [String: String] = [:]
    private(set) var imageReferences: [ImageReference] = []
    /// How many bytes entity expansion may add, over the whole document: libxml2 bounds its
    /// amplification too, but only after this scanner would have done the work.
    private var expansionLimit: Int

    init(bytes: [UInt8]) {
        self.bytes = bytes
        expansionLimit = max(4096, bytes.count)
    }

    /// The elements whose `href` librsvg decodes as an image.
    private static let imageElements: Set<String> = ["image", "feImage"]

    mutating func scan() throws(WebImageError) {
        while let open = next(UInt8(ascii: "<")) {
            position = open + 1
            if starts(with: "!--") {
                // Past the opener: `<!-->` does not end the comment it opens.
                position += 3
                try skip(past: "-->")
            } else if starts(with: "![CDATA[") {
                position += 8
                try skip(past: "]]>")
            } else if starts(with: "?") {
                // librsvg reads a style sheet instruction's URL again with an HTML parser
                // (`&colon;` is a colon there): none is rendered.
                if starts(with: "?xml-stylesheet") { throw .badImageData("SVG: a style sheet instruction") }
                position += 1
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

    /// How many times `data:` appears in the document as librsvg could read it: character
    /// references (of any length) and the document's entities expanded first, then CSS
    /// escapes decoded in the result (a reference can spell a backslash), every ASCII space
    /// and control character dropped (a URL parser drops tabs and line breaks anywhere),
    /// letters lower-cased. Wherever it stands (an attribute, CSS, a comment), each is one
    /// more URL that must be accounted for.
    func dataURLCount() throws(WebImageError) -> Int {
        // 1. XML references expanded, as libxml2 gives the text to librsvg.
        var expanded: [UInt8] = []
        expanded.reserveCapacity(bytes.count)
        var budget = expansionLimit
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "&"), let end = Self.referenceEnd(in: bytes, from: index) {
                let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                if let replacement = (try? Self.characterReference(name)) ?? entities[name] {
                    budget -= replacement.utf8.count
                    guard budget >= 0 else { throw .badImageData("SVG: entities expand past the document's own size") }
                    expanded += replacement.utf8
                    index = end + 1
                    continue
                }
            }
            expanded.append(byte)
            index += 1
        }
        // 2. CSS escapes decoded, spaces and controls dropped, letters lower-cased.
        var view: [UInt8] = []
        view.reserveCapacity(expanded.count)
        func append(_ text: some Sequence<UInt8>) {
            for byte in text where byte > 0x20 && byte != 0x7F { view.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
        }
        index = 0
        while index < expanded.count {
            let byte = expanded[index]
            if byte == UInt8(ascii: "\\"), index + 1 < expanded.count {
                // A CSS escape: up to six hex digits (and one space after them), or the next
                // character as it is.
                var digits = 0, value: UInt32 = 0, cursor = index + 1
                while digits < 6, cursor < expanded.count, let digit = Self.hexValue(expanded[cursor]) {
                    value = value << 4 | UInt32(digit)
                    digits += 1
                    cursor += 1
                }
                if digits > 0 {
                    if let scalar = Unicode.Scalar(value) { append(String(Character(scalar)).utf8) }
                    index = cursor
                } else {
                    index += 1
                }
                continue
            }
            append(CollectionOfOne(byte))
            index += 1
        }
        let pattern = Array("data:".utf8)
        var count = 0, at = 0
        while at + pattern.count <= view.count {
            if view[at] == pattern[0], view[at..<at + pattern.count].elementsEqual(pattern) { count += 1 }
            at += 1
        }
        return count
    }

    /// Where the reference that starts at `start` (an `&`) ends (its `;`), or `nil` when the
    /// text there is no reference: a name or number of any length (libxml2 takes any
    /// number of leading zeros), stopping at the first byte a reference cannot hold.
    private static func referenceEnd(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: ";"): return index > start + 1 ? index : nil
            case 0x00...0x20, UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"):
                return nil
            default: index += 1
            }
        }
        return nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
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

    /// A name (element, attribute, entity): up to a space, `=`, `>`, `/`, a quote or a bracket.
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
        let element = readName()
        let localName = element.split(separator: ":").last.map(String.init) ?? element
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
            if Self.imageElements.contains(localName), name == "href" || name.hasSuffix(":href") {
                imageReferences.append(ImageReference(element: localName, value: try expanded(value)))
            }
        }
    }

    /// `<!DOCTYPE name [external id] [internal subset]>`: entities are kept when they are
    /// plain text, and refused otherwise. Other declarations are read past (an attribute
    /// default naming a `data:` URL is counted by ``dataURLCount()`` and never measured).
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
                position += 4
                try skip(past: "-->")
            } else if starts(with: "<!ENTITY") {
                position += 8
                try readEntity()
            } else if starts(with: "<!ATTLIST") || starts(with: "<!ELEMENT") || starts(with: "<!NOTATION") {
                try readDeclaration()
            } else if starts(with: "<?") {
                position += 2
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
        // libxml2 expands a reference with the text the entity has at that point, this
        // reading with its last: declared twice, the two could disagree.
        guard entities[name] == nil else { throw .badImageData("SVG: an entity declared twice") }
        entities[name] = value
        skipSpace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
            throw .badImageData("SVG: a malformed entity declaration")
        }
        position += 1
    }

    /// An `ATTLIST`, `ELEMENT` or `NOTATION` declaration, up to its `>`.
    private mutating func readDeclaration() throws(WebImageError) {
        while position < bytes.count, bytes[position] != UInt8(ascii: ">") {
            if bytes[position] == 0x22 || bytes[position] == 0x27 { _ = try readQuoted() } else { position += 1 }
        }
        guard position < bytes.count else { throw .badImageData("SVG: an unterminated DTD declaration") }
        position += 1
    }

    /// `value` with character references, the predefined entities and the document's plain
    /// entities replaced, as libxml2 gives it to librsvg; held to ``expansionLimit``.
    private mutating func expanded(_ value: String) throws(WebImageError) -> String {
        guard value.contains("&") else { return value }
        var result = ""
        var rest = Substring(value)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            guard let semicolon = rest[ampersand...].firstIndex(of: ";") else {
                throw .badImageData("SVG: an unterminated reference")
            }
            let name = String(rest[rest.index(after: ampersand)..<semicolon])
            let replacement = try Self.characterReference(name) ?? entities[name]
            guard let replacement else { throw .badImageData("SVG: a reference to an undeclared entity") }
            expansionLimit -= replacement.utf8.count
            guard expansionLimit >= 0 else { throw .badImageData("SVG: entities expand past the document's own size") }
            result += replacement
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }

    /// The text of a predefined entity or a character reference (`#65`, `#x41`); `nil` for
    /// another name.
    private static func characterReference(_ name: String) throws(WebImageError) -> String? {
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default: break
        }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let code = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        guard let code, let scalar = Unicode.Scalar(code) else { throw .badImageData("SVG: a malformed character reference") }
        return String(Character(scalar))
    }
}
