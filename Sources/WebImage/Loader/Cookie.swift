import Foundation

/// One HTTP cookie as a ``CookieJar`` keeps it (RFC 6265, section 5.3).
///
/// Cookies are identified by ``name``, ``domain`` and ``path``: a later `Set-Cookie` with
/// the same three replaces the earlier one.
public struct Cookie: Sendable, Hashable {
    /// The cookie's name (never empty).
    public var name: String
    /// The cookie's value, sent back exactly as received.
    public var value: String
    /// The lower-cased domain it belongs to, without a leading dot.
    public var domain: String
    /// The path prefix it is sent for; always starts with `/`.
    public var path: String
    /// When it expires; `nil` for a session cookie (kept until the jar is emptied).
    public var expiresAt: Date?
    /// Sent only over HTTPS.
    public var isSecure: Bool
    /// Sent only to ``domain`` itself, not its subdomains (no `Domain` attribute was given).
    public var isHostOnly: Bool
    /// The server's `HttpOnly` flag. Recorded for callers that inspect the jar; it does not
    /// change what the downloader sends, since this is not a scripting environment.
    public var isHTTPOnly: Bool

    /// Creates a cookie.
    public init(
        name: String,
        value: String,
        domain: String,
        path: String = "/",
        expiresAt: Date? = nil,
        isSecure: Bool = false,
        isHostOnly: Bool = true,
        isHTTPOnly: Bool = false
    ) {
        self.name = name
        self.value = value
        self.domain = domain.lowercased()
        self.path = path
        self.expiresAt = expiresAt
        self.isSecure = isSecure
        self.isHostOnly = isHostOnly
        self.isHTTPOnly = isHTTPOnly
    }

    /// Whether the cookie has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        expiresAt.map { $0 <= date } ?? false
    }

    /// Whether a request to `url` carries this cookie: domain, path and scheme match
    /// (RFC 6265, 5.4). Expiry is the jar's business.
    public func matches(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return false }
        if isSecure, url.scheme?.lowercased() != "https" { return false }
        let domainMatches = isHostOnly ? host == domain : Self.domain(host, matches: domain)
        return domainMatches && Self.path(url.path.isEmpty ? "/" : url.path, matches: path)
    }

    /// RFC 6265 5.1.3: `host` is `domain` or a subdomain of it, and not an IP address.
    static func domain(_ host: String, matches domain: String) -> Bool {
        if host == domain { return true }
        guard host.hasSuffix("." + domain) else { return false }
        return !isIPAddress(host)
    }

    /// RFC 6265 5.1.4: the request path equals the cookie path or continues it at a `/`.
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if requestPath.count == cookiePath.count || cookiePath.hasSuffix("/") { return true }
        return requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// Whether `host` is a literal IPv4 or IPv6 address, which never domain-matches.
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
        }
    }
}
