import Foundation

extension Cookie {
    /// The longest `name=value` accepted, as browsers do (RFC 6265 6.1 asks for at least
    /// 4096 bytes); longer ones are dropped rather than stored without bound.
    static let maximumSize = 4096
    /// The longest attribute value read (`Path`, `Domain`, ...); a longer one is ignored,
    /// as RFC 6265bis says.
    static let maximumAttributeSize = 1024

    /// A character no cookie may contain: C0 controls but tab, DEL, C1 controls, and the
    /// Unicode line and paragraph separators.
    private static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09: false
        case 0x00..<0x20, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }

    /// Parses one `Set-Cookie` header value received from `url` (RFC 6265, 5.2 and 5.3).
    /// Returns `nil` for a header a user agent must ignore: no name, too large, control
    /// characters or line separators, a `Domain` that does not cover the host, or a
    /// `Domain` that is a public suffix (`com`, `co.uk`: Debian's public suffix list) other
    /// than the host itself.
    public init?(setCookie header: String, from url: URL, now: Date = Date()) {
        self.init(setCookie: header, from: url, now: now, publicSuffixes: .system)
    }

    /// ``init(setCookie:from:now:)`` with the public suffixes of `publicSuffixes`.
    init?(setCookie header: String, from url: URL, now: Date = Date(), publicSuffixes: PublicSuffixList) {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        // RFC 6265bis: control characters (but tab) void the whole header; copied into a
        // later `Cookie` header, a line break would split that request. Stricter than the
        // RFC, which names only C0 and DEL: the C1 controls and the Unicode line and
        // paragraph separators go too, since NEL (U+0085), U+2028 and U+2029 end a line for
        // some readers (Swift's `isNewline`, log tools). Fuzzing found NEL passing through
        // to the jar's `Cookie` header (Fuzz/findings/cookie-nel-line-break.txt).
        guard !header.unicodeScalars.contains(where: Self.isRefused) else { return nil }
        let fields = header.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = fields.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.maximumSize else { return nil }

        var expiresAt: Date?
        var maxAge: Date?
        var domain: String?
        var path: String?
        var isSecure = false
        var isHTTPOnly = false
        for field in fields.dropFirst() {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let attribute = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            // RFC 6265bis ignores an attribute value over 1,024 bytes: with it, a stored
            // cookie stays within a few kilobytes (`maximumSize` bounds only the name and
            // value), and the jar's count bounds its memory.
            guard argument.utf8.count <= Self.maximumAttributeSize else { continue }
            switch attribute {
            case "expires":
                if let date = CookieDate.parse(argument) { expiresAt = date }
            case "max-age":
                // Max-Age wins over Expires whatever their order; zero or less expires now.
                guard let seconds = Int(argument) else { break }
                maxAge = seconds <= 0 ? .distantPast : now.addingTimeInterval(TimeInterval(min(seconds, 400 * 24 * 3600)))
            case "domain":
                let trimmed = argument.hasPrefix(".") ? String(argument.dropFirst()) : argument
                if !trimmed.isEmpty { domain = trimmed.lowercased() }
            case "path":
                if argument.hasPrefix("/") { path = argument }
            case "secure":
                isSecure = true
            case "httponly":
                isHTTPOnly = true
            default:
                continue
            }
        }

        var isHostOnly = domain == nil
        if let domain {
            guard Cookie.domain(host, matches: domain) else { return nil }
            // A cookie for a public suffix ("com", "co.uk") would reach every site under it
            // (RFC 6265 5.3, step 5): refused, unless the suffix is the host itself, whose
            // cookie is then its own alone.
            if publicSuffixes.isPublicSuffix(domain) {
                guard domain == host else { return nil }
                isHostOnly = true
            }
        }
        self.init(
            name: name,
            value: value,
            domain: domain ?? host,
            path: path ?? Self.defaultPath(of: url),
            expiresAt: maxAge ?? expiresAt,
            isSecure: isSecure,
            isHostOnly: isHostOnly,
            isHTTPOnly: isHTTPOnly
        )
    }

    /// RFC 6265 5.1.4: the request path up to (not including) its last `/`, or `/`.
    static func defaultPath(of url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
