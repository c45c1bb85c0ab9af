import AsyncHTTPClient
import Foundation

extension Downloader {
    /// An HTTP proxy server, with optional Basic credentials: where ``ProxySettings`` sends
    /// the requests it does not exempt.
    ///
    /// Every request through it, `http:` and `https:` alike, opens a tunnel with `CONNECT
    /// host:port` (AsyncHTTPClient's proxy support), sending `Proxy-Authorization: Basic …`
    /// when credentials are set; TLS to the origin then runs inside the tunnel, so the proxy
    /// never sees an `https:` request. A proxy answering `407` fails the download with
    /// ``WebImageError/proxyAuthenticationRequired``. Only plain-HTTP proxies are
    /// supported (not TLS to the proxy itself, nor SOCKS).
    ///
    /// ```swift
    /// let proxy = try Downloader.Proxy(url: "http://user:secret@proxy.internal:3128")
    /// var config = Downloader.Configuration()
    /// config.proxy = Downloader.ProxySettings(proxy: proxy)
    /// ```
    public struct Proxy: Sendable, Hashable, CustomStringConvertible {
        /// The port curl uses for a proxy URL without one: 1080.
        public static let defaultPort = 1080

        /// The proxy's host name or IP address (an IPv6 address without brackets).
        public var host: String
        /// The proxy's TCP port.
        public var port: Int
        /// The user name sent in `Proxy-Authorization: Basic`; `nil` sends no credentials.
        public var username: String?
        /// The password for ``username``; `nil` counts as empty.
        public var password: String?

        /// A proxy at `host:port`, with Basic credentials when `username` is given.
        public init(host: String, port: Int, username: String? = nil, password: String? = nil) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
        }

        /// Parses a proxy as curl's `--proxy` and `http_proxy` take it:
        /// `[http://][user[:password]@]host[:port][/]`. Without a scheme it is `http`; without
        /// a port, ``defaultPort`` (curl's 1080); the user and password are percent-decoded.
        /// - Throws: ``WebImageError/invalidConfiguration(_:)`` for an empty or malformed
        ///   value, a port outside 1...65535, or another scheme (`https://` and `socks5://`
        ///   proxies are not supported, so a download is never sent directly when the
        ///   user meant it to go through such a proxy).
        public init(url text: String) throws(WebImageError) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { throw .invalidConfiguration("empty proxy URL") }
            let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
            guard let components = URLComponents(string: withScheme) else {
                throw .invalidConfiguration("malformed proxy URL \(Self.redacted(trimmed))")
            }
            let scheme = components.scheme?.lowercased() ?? ""
            guard scheme == "http" else {
                throw .invalidConfiguration("unsupported proxy scheme \"\(scheme)\" in \(Self.redacted(trimmed)): only http:// proxies are supported")
            }
            var host = components.host ?? ""
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { throw .invalidConfiguration("proxy URL without a host: \(Self.redacted(trimmed))") }
            let port = components.port ?? Self.defaultPort
            guard (1...65535).contains(port) else { throw .invalidConfiguration("proxy port \(port) is out of range") }
            let path = components.path
            guard path.isEmpty || path == "/", components.query == nil, components.fragment == nil else {
                throw .invalidConfiguration("a proxy URL has no path or query: \(Self.redacted(trimmed))")
            }
            self.init(
                host: host, port: port,
                username: components.percentEncodedUser.map { $0.removingPercentEncoding ?? $0 },
                password: components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 }
            )
        }

        /// `http://host:port`, with the user name but never the password, fit for a log.
        public var description: String {
            let host = self.host.contains(":") ? "[\(self.host)]" : self.host
            return "http://\(username.map { "\($0)@" } ?? "")\(host):\(port)"
        }

        /// The proxy as AsyncHTTPClient's client setting.
        var clientProxy: HTTPClient.Configuration.Proxy {
            let authorization = username.map { HTTPClient.Authorization.basic(username: $0, password: password ?? "") }
            return .server(host: host, port: port, authorization: authorization)
        }

        /// `text` with any password replaced by `***`, for error messages.
        private static func redacted(_ text: String) -> String {
            guard let at = text.lastIndex(of: "@") else { return text }
            let start = text.range(of: "://")?.upperBound ?? text.startIndex
            let userInfo = text[start..<at]
            guard let colon = userInfo.firstIndex(of: ":") else { return text }
            return String(text[..<colon]) + ":***" + String(text[at...])
        }
    }
}
