import Foundation
import WebImage

/// A source URL as it will be fetched: scheme, host, port and path, normalised, so that the
/// allow-list judges the server the connection goes to and not how its URL is spelled.
///
/// The host is the parsed one (`http://allowed.example@evil.example/` is `evil.example`),
/// lowercased, without a trailing dot, and a numeric host is written as its canonical
/// address (`http://0x7f.1/` is `127.0.0.1`, IPv6 in brackets). The port is always given.
///
/// ```swift
/// let location = try NormalizedSourceURL(URL(string: "HTTP://Images.Example.:80/a.png")!)
/// location.normalized   // "http://images.example:80/a.png"
/// ```
public struct NormalizedSourceURL: Sendable, Equatable {
    /// `http` or `https`.
    public let scheme: String
    /// The normalised host (an IPv6 address in brackets).
    public let host: String
    /// The port, the scheme's default when the URL gives none.
    public let port: Int
    /// The percent-encoded path (at least `/`) and query, as sent.
    public let pathAndQuery: String

    /// Takes `url` apart.
    /// - Throws: ``ImageServerError/badOptions(_:)`` (400) for a scheme other than http and
    ///   https (the server fetches nothing else: no `file:`, no `data:`), no host, a host
    ///   with characters no host name has (see ``isPlausibleHost(_:)``), or a port outside
    ///   1...65535.
    public init(_ url: URL) throws(ImageServerError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .badOptions("the source is not an http(s) URL")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let rawHost = components.host, !rawHost.isEmpty else {
            throw .badOptions("the source URL has no host")
        }
        guard Self.isPlausibleHost(rawHost) else {
            throw .badOptions("the source URL's host has characters no host name has")
        }
        // Foundation takes `:70000` (on which the HTTP client traps) and reads twenty
        // digits as no port at all (the default, silently).
        guard url.hasUsablePort else {
            throw .badOptions("the source URL's port is not a number from 1 to 65535")
        }
        self.scheme = scheme
        host = Self.normalizedHost(rawHost)
        port = components.port ?? (scheme == "https" ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        guard !Self.hasDotSegment(path) else {
            throw .badOptions("the source URL's path has a \".\" or \"..\" segment")
        }
        pathAndQuery = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// Whether `percentEncodedPath` has a `.` or `..` segment as an origin that resolves
    /// them may read it: percent-decoded (`%2e`, and `%2f` as a separator), with `\` also
    /// separating (as Windows servers read it) and a `;parameter` ignored (as Java servers
    /// read `/..;/`). Such a path climbs out of the folder an allow-list pattern names
    /// (`/public/%2e%2e/private/x.png` matches `/public/`), and no image URL needs one.
    ///
    /// Every layer of encoding is looked through, since an origin behind a proxy or a
    /// framework may decode twice (`%252e%252e` is `%2e%2e` after one decoding and `..`
    /// after two). A path still encoded after ``maximumEncodingLayers`` decodings counts as
    /// having one: no image URL is, and peeling `%2525…` one layer at a time would take
    /// time quadratic in its length.
    static func hasDotSegment(_ percentEncodedPath: String) -> Bool {
        var layer = Array(percentEncodedPath.utf8)
        for _ in 0...maximumEncodingLayers {
            if layerHasDotSegment(layer) { return true }
            let decoded = decodedOnce(layer)
            if decoded == layer { return false }
            layer = decoded
        }
        return true
    }

    /// Decodings of a path looked through (see ``hasDotSegment(_:)``).
    static let maximumEncodingLayers = 4

    /// ``hasDotSegment(_:)`` for one decoding of `bytes`.
    private static func layerHasDotSegment(_ bytes: [UInt8]) -> Bool {
        var segment: [UInt8] = []
        var index = 0
        while index <= bytes.count {
            var byte = index < bytes.count ? bytes[index] : UInt8(ascii: "/")
            index += 1
            // A malformed escape stays as it is, as a server that cannot decode it reads it.
            if byte == UInt8(ascii: "%"), index + 1 < bytes.count,
               let high = bytes[index].hexDigitValue, let low = bytes[index + 1].hexDigitValue {
                byte = high << 4 | low
                index += 2
            }
            guard byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") else {
                segment.append(byte)
                continue
            }
            let name = segment.prefix { $0 != UInt8(ascii: ";") }
            if name.elementsEqual([0x2E]) || name.elementsEqual([0x2E, 0x2E]) { return true }
            segment.removeAll(keepingCapacity: true)
        }
        return false
    }

    /// `bytes` with each well-formed `%XX` replaced by its byte, once.
    private static func decodedOnce(_ bytes: [UInt8]) -> [UInt8] {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = bytes[index + 1].hexDigitValue, let low = bytes[index + 2].hexDigitValue {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded
    }

    /// `scheme://host:port/path?query`, what allow-list patterns are matched against.
    public var normalized: String { "\(scheme)://\(host):\(port)\(pathAndQuery)" }

    /// Whether `host` (percent-decoded, as the URL gives it) has only what a host name or
    /// address can: ASCII letters, digits, `-`, `.`, `_`, the brackets and colons of IPv6,
    /// and non-ASCII letters of an internationalised name. A decoded `%00` matters most:
    /// `evil.example%00.allowed.example` would match `*.allowed.example` while the resolver,
    /// reading a C string, looks up `evil.example`.
    ///
    /// Brackets and colons only as an IPv6 literal has them, `[` first and `]` last around
    /// an address: AsyncHTTPClient trims a lone leading `[` or trailing `]`, so a host such
    /// as `[evil.example` would be looked up under another name than the one the address
    /// check pinned (a review's hardening; Foundation's parser refuses it today).
    public static func isPlausibleHost(_ host: String) -> Bool {
        let hasBracketOrColon = host.contains { $0 == "[" || $0 == "]" || $0 == ":" }
        if hasBracketOrColon {
            // With its brackets, as the URL gives it, or without (a parser that strips them).
            let bracketed = host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2
            let address = bracketed ? String(host.dropFirst().dropLast()) : host
            guard !address.contains(where: { $0 == "[" || $0 == "]" }), case .v6? = IPAddress(parsing: address) else { return false }
            return true
        }
        return host.unicodeScalars.allSatisfy { scalar in
            if scalar.isASCII {
                let byte = UInt8(scalar.value)
                return (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || "-._:[]".utf8.contains(byte)
            }
            return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                || scalar.properties.generalCategory == .nonspacingMark
        }
    }

    /// Lowercased, without brackets' contents changed but for case, one trailing dot
    /// removed; an address in any spelling becomes its canonical text.
    static func normalizedHost(_ host: String) -> String {
        var host = host.lowercased()
        if let address = IPAddress(parsing: host) {
            if case .v6 = address { return "[\(address)]" }
            return address.description
        }
        if host.hasSuffix("."), host.count > 1 { host.removeLast() }
        return host
    }
}
