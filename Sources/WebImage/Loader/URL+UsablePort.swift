import Foundation

extension URL {
    /// Whether the port the URL names, if any, is one a connection can use: 1 to 65,535.
    ///
    /// Foundation takes any run of digits as a port: 65,536 or 70,000 come back as such, and
    /// twenty digits as no port at all (the scheme's default would then be used, silently).
    /// AsyncHTTPClient converts an IP literal's port to a 16-bit number without a check, and
    /// that conversion traps: one URL (or one redirect) with `:70000` stopped the process.
    /// So every URL a download or the server is about to use is held to this first.
    package var hasUsablePort: Bool {
        if let port { return (1...65_535).contains(port) }
        return Self.portText(of: absoluteString)?.isEmpty ?? true
    }

    /// The text after the host's `:` in `text`'s authority (`nil` when it names no port,
    /// empty for a bare `:`), read the way the URL parser splits an authority: after the
    /// last `@` of the user part, and past a bracketed IPv6 address.
    static func portText(of text: String) -> Substring? {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let rest = text[schemeEnd.upperBound...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            authority = authority[authority.index(after: close)...]
        }
        guard let colon = authority.firstIndex(of: ":") else { return nil }
        return authority[authority.index(after: colon)...]
    }
}
