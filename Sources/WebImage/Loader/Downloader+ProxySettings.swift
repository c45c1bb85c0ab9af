import Foundation

extension Downloader {
    /// Which proxy, if any, each download goes through: one proxy per URL scheme and a list
    /// of hosts reached directly (``Bypass``), as curl decides it.
    ///
    /// The choice is made once per download, from its URL after the request modifier: a
    /// redirect is followed through the same route as the first request (AsyncHTTPClient
    /// follows redirects on the connection pool it started with; curl would look again).
    /// Downloads pinned to an address (``DownloadRequestOptions/pinnedAddress``) always
    /// connect directly: a proxy would resolve the host name again and undo the pin.
    ///
    /// The library reads no environment variable unless asked: ``Downloader/Configuration/proxy``
    /// defaults to ``direct``, as a library should not change where it connects because
    /// of a variable its host process happened to inherit. ``environment(_:)`` reads them
    /// as curl does (the `webimage` command does so by default, like curl).
    ///
    /// ```swift
    /// var config = Downloader.Configuration()
    /// config.proxy = try Downloader.ProxySettings.environment()
    /// let downloader = Downloader(config: config)
    /// ```
    public struct ProxySettings: Sendable, Hashable {
        /// No proxy: every download connects directly. The default.
        public static let direct = ProxySettings()

        /// The proxy of `http:` URLs; `nil` connects directly.
        public var http: Proxy?
        /// The proxy of `https:` URLs; `nil` connects directly.
        public var https: Proxy?
        /// The hosts reached directly whatever the scheme. Default ``Bypass/none``.
        public var bypass: Bypass

        /// Settings with a proxy per scheme (none by default).
        public init(http: Proxy? = nil, https: Proxy? = nil, bypass: Bypass = .none) {
            self.http = http
            self.https = https
            self.bypass = bypass
        }

        /// `proxy` for `http:` and `https:` alike (curl's `--proxy`), except the hosts of `bypass`.
        public init(proxy: Proxy, bypass: Bypass = .none) {
            self.init(http: proxy, https: proxy, bypass: bypass)
        }

        /// The proxy a download of `url` goes through; `nil` when it connects directly.
        public func proxy(for url: URL) -> Proxy? {
            // Most downloaders have no proxy: no URL parsing then, as this runs per download.
            guard http != nil || https != nil else { return nil }
            let proxy: Proxy?
            switch url.scheme?.lowercased() {
            case "http": proxy = http
            case "https": proxy = https
            default: return nil
            }
            guard let proxy, !bypass.matches(host: url.host ?? "") else { return nil }
            return proxy
        }

        /// The settings of an environment, read as curl reads it:
        /// - `https:` URLs use `https_proxy`, else `HTTPS_PROXY`;
        /// - `http:` URLs use `http_proxy` only: never the upper-case `HTTP_PROXY`, which a
        ///   CGI program inherits from a request's `Proxy:` header ("httpoxy"), so a client
        ///   could otherwise choose the proxy;
        /// - either falls back to `all_proxy`, else `ALL_PROXY`;
        /// - ``Bypass/environment(_:)`` (`no_proxy`, else `NO_PROXY`) lists the hosts reached
        ///   directly.
        ///
        /// An empty variable counts as unset (curl's `curl_getenv`). Values are parsed by
        /// ``Proxy/init(url:)``.
        /// - Throws: ``WebImageError/invalidConfiguration(_:)`` naming the variable whose
        ///   value cannot be used (malformed, or a `socks5://` or `https://` proxy):
        ///   downloads never go direct when the environment asks for a proxy this library
        ///   cannot use.
        public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(WebImageError) -> ProxySettings {
            func variable(_ names: String...) throws(WebImageError) -> Proxy? {
                for name in names {
                    guard let value = environment[name], !value.isEmpty else { continue }
                    do {
                        return try Proxy(url: value)
                    } catch {
                        guard case .invalidConfiguration(let reason) = error else { throw error }
                        throw .invalidConfiguration("\(name): \(reason)")
                    }
                }
                return nil
            }
            // The first variable set wins, so an ALL_PROXY this library cannot use matters
            // only to a scheme without a variable of its own.
            return try ProxySettings(
                http: variable("http_proxy", "all_proxy", "ALL_PROXY"),
                https: variable("https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"),
                bypass: Bypass.environment(environment)
            )
        }
    }
}
