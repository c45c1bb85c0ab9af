/// One entry of `WEBIMAGE_ALLOWED_SOURCES`: `scheme://host[:port][/path-prefix]`, where `*`
/// matches any run of characters but `/` (and, in the host, but `:` too).
///
/// Matched against a ``NormalizedSourceURL`` part by part, not as a prefix of the URL's text: the
/// scheme must be equal, the host must match the host pattern whole (so
/// `http://allowed.example` admits neither `http://allowed.example.evil.example/` nor
/// `http://allowed.example@evil.example/`), the port must be the one given (`*` for any;
/// the scheme's default when none is given), and the path must start with the path prefix.
///
/// ```swift
/// let pattern = try SourcePattern(parsing: "https://*.cdn.example/images/")
/// pattern.matches(try NormalizedSourceURL(URL(string: "https://eu.cdn.example/images/a.png")!))   // true
/// ```
public struct SourcePattern: Sendable, Equatable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// The host pattern, lowercased (a numeric host canonical).
    public let host: String
    /// The port, `nil` for `*`.
    public let port: Int?
    /// The path prefix pattern, at least `/`.
    public let path: String
    /// The text the pattern was parsed from.
    public let description: String

    /// Parses one entry.
    /// - Throws: ``ImageServerError/badOptions(_:)`` naming the entry, for a scheme other
    ///   than http or https, an empty host or a malformed port.
    public init(parsing text: String) throws(ImageServerError) {
        description = text
        guard let separator = text.range(of: "://") else {
            throw .badOptions("allowed source \"\(text)\" is not scheme://host[:port][/path]")
        }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw .badOptions("allowed source \"\(text)\": only http and https sources can be fetched")
        }
        let rest = text[separator.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        var hostPart = Substring(authority)
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .badOptions("allowed source \"\(text)\" has an unclosed IPv6 bracket")
            }
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .badOptions("allowed source \"\(text)\" has junk after its host") }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty, !hostPart.contains("@") else {
            throw .badOptions("allowed source \"\(text)\" has no host (or has user info)")
        }
        self.scheme = scheme
        host = hostPart.contains("*") ? hostPart.lowercased() : NormalizedSourceURL.normalizedHost(String(hostPart))
        switch portPart {
        case nil: port = scheme == "https" ? 443 : 80
        case "*": port = nil
        case let digits?:
            guard let number = Int(digits), (1...65_535).contains(number) else {
                throw .badOptions("allowed source \"\(text)\" has a malformed port")
            }
            port = number
        }
        self.path = path.isEmpty ? "/" : String(path)
    }

    /// Whether `location` is allowed by this entry.
    public func matches(_ location: NormalizedSourceURL) -> Bool {
        guard location.scheme == scheme, port == nil || port == location.port else { return false }
        return Self.glob(Array(host.utf8), Array(location.host.utf8), stops: [UInt8(ascii: "/"), UInt8(ascii: ":")], wholeText: true)
            && Self.glob(Array(path.utf8), Array(location.pathAndQuery.utf8), stops: [UInt8(ascii: "/")], wholeText: false)
    }

    /// Whether `pattern` (with `*` matching runs without a `stops` byte) matches all of
    /// `text`, or with `wholeText` false some prefix of it. Tracks every text position the
    /// pattern so far can end at, one sweep of the text per pattern byte, so a hostile URL
    /// costs pattern × text steps at most, never backtracking.
    static func glob(_ pattern: [UInt8], _ text: [UInt8], stops: Set<UInt8>, wholeText: Bool) -> Bool {
        var reachable = [Bool](repeating: false, count: text.count + 1)
        reachable[0] = true
        for symbol in pattern {
            var next = [Bool](repeating: false, count: text.count + 1)
            if symbol == UInt8(ascii: "*") {
                // A star ends anywhere from a reachable position up to the next stop byte.
                var open = false
                for position in 0...text.count {
                    open = open || reachable[position]
                    next[position] = open
                    if position < text.count, stops.contains(text[position]) { open = false }
                }
            } else {
                for position in 0..<text.count where reachable[position] && text[position] == symbol {
                    next[position + 1] = true
                }
            }
            reachable = next
        }
        return wholeText ? reachable[text.count] : reachable.contains(true)
    }
}
