import ArgumentParser
import Foundation
import WebImage

/// The network options `fetch` and `prefetch` share, named as curl names them: the proxy
/// (with curl's environment variables honoured by default), the TLS trust and client
/// certificate, HTTP/2 and the connections per host.
struct NetworkOptions: ParsableArguments {
    @Option(name: [.customShort("x"), .long], help: ArgumentHelp(
        "Send requests through this HTTP proxy, [http://][user:password@]host[:port] (port 1080 when not given), "
            + "in place of $https_proxy, $http_proxy and $all_proxy; '' connects directly. "
            + "Unlike curl, http URLs are tunnelled too (CONNECT host:80), so the proxy must allow CONNECT to port 80.",
        valueName: "url"
    ))
    var proxy: String?

    @Option(name: .customLong("noproxy"), help: ArgumentHelp(
        "Hosts reached without the proxy, in place of $no_proxy: comma-separated host names (their subdomains too), "
            + "IP addresses and CIDR ranges, or '*' for all.",
        valueName: "list"
    ))
    var noProxy: String?

    @Option(name: .customLong("cacert"), help: ArgumentHelp(
        "Trust only the CA certificates in this PEM file, in place of the system's.", valueName: "file"
    ))
    var caCertificates: String?

    @Option(name: .customLong("cert"), help: ArgumentHelp(
        "Present this client certificate (PEM) to servers that ask for one; its key comes from --key, or else from this file.",
        valueName: "file"
    ))
    var certificate: String?

    @Option(name: .customLong("key"), help: ArgumentHelp("The unencrypted PEM private key of --cert.", valueName: "file"))
    var key: String?

    @Flag(name: [.customShort("k"), .long], help: "Accept any server certificate (self-signed, expired, another host's).")
    var insecure = false

    @Flag(name: .customLong("http1.1"), help: "Use HTTP/1.1 only (by default HTTPS uses HTTP/2 when the server offers it).")
    var http1Only = false

    @Option(name: .customLong("max-connections-per-host"), help: ArgumentHelp(
        "The most HTTP/1.1 connections open to one host at once (default: as many as loads run at once, at least 8); "
            + "a request waiting for one gives up after --timeout.",
        valueName: "n"
    ))
    var maxConnectionsPerHost: Int?

    func validate() throws {
        if let maxConnectionsPerHost, maxConnectionsPerHost < 1 {
            throw ValidationError("--max-connections-per-host must be at least 1")
        }
        if key != nil, certificate == nil { throw ValidationError("--key needs --cert") }
    }

    /// Sets `config` as the options ask. Without `--proxy`, the proxies come from
    /// `environment` as curl reads it (``Downloader/ProxySettings/environment(_:)``);
    /// `--noproxy` replaces `no_proxy` either way, and `no_proxy` applies to `--proxy` too,
    /// as in curl.
    /// - Throws: ``WebImageError/invalidConfiguration(_:)`` for a proxy, certificate or key
    ///   that cannot be used.
    func apply(to config: inout Downloader.Configuration, environment: [String: String]) throws(WebImageError) {
        let bypass = noProxy.map(Downloader.ProxySettings.Bypass.init) ?? .environment(environment)
        if let proxy, proxy.isEmpty {
            config.proxy = .direct
        } else if let proxy {
            config.proxy = try Downloader.ProxySettings(proxy: Downloader.Proxy(url: proxy), bypass: bypass)
        } else {
            config.proxy = try Downloader.ProxySettings.environment(environment)
            config.proxy.bypass = bypass
        }
        if let caCertificates { config.trustRoots = try .only(Downloader.CertificateBundle(pemFile: caCertificates)) }
        if let certificate {
            config.clientIdentity = try Downloader.ClientIdentity(certificateFile: certificate, keyFile: key ?? certificate)
        }
        config.allowInvalidCertificates = insecure
        config.allowsHTTP2 = !http1Only
        config.maxConnectionsPerHost = maxConnectionsPerHost
    }
}
