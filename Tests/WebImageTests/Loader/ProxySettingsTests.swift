import Foundation
import Testing
@testable import WebImage

/// The proxy settings as pure values: proxy URLs, curl's environment variables and its
/// `no_proxy` matching, without a socket (the downloader's use of them is in
/// DownloaderProxyTests).
@Suite struct ProxySettingsTests {
    typealias Proxy = Downloader.Proxy
    typealias Settings = Downloader.ProxySettings
    typealias Bypass = Downloader.ProxySettings.Bypass

    @Test func aProxyURLTakesCredentialsAndCurlsDefaultPort() throws {
        let proxy = try Proxy(url: "http://us%40er:p%3Ass@proxy.internal:3128/")
        #expect(proxy == Proxy(host: "proxy.internal", port: 3128, username: "us@er", password: "p:ss"))
        #expect(try Proxy(url: "proxy.internal") == Proxy(host: "proxy.internal", port: 1080))
        #expect(try Proxy(url: "HTTP://[::1]:8080") == Proxy(host: "::1", port: 8080))
        #expect(try Proxy(url: "http://user@10.0.0.1:3128") == Proxy(host: "10.0.0.1", port: 3128, username: "user"))
    }

    @Test func aProxyDescriptionNeverShowsThePassword() throws {
        let proxy = try Proxy(url: "http://user:secret@proxy.internal:3128")
        #expect(proxy.description == "http://user@proxy.internal:3128")
        #expect(!"\(proxy)".contains("secret"))
    }

    @Test(arguments: [
        "", "   ", "socks5://proxy:1080", "https://proxy:443", "http://:3128", "http://proxy:0",
        "http://proxy:3128/path", "http://proxy:3128?x=1", "http://proxy:70000",
    ])
    func unusableProxyURLsAreConfigurationErrors(_ text: String) {
        let error = #expect(throws: WebImageError.self) { try Proxy(url: text) }
        guard case .invalidConfiguration = error else {
            Issue.record("\(text): \(String(describing: error))")
            return
        }
    }

    @Test func anUnsupportedSchemeIsNamedAndThePasswordHidden() {
        #expect(throws: WebImageError.invalidConfiguration(
            "unsupported proxy scheme \"socks5\" in socks5://user:***@proxy:1080: only http:// proxies are supported"
        )) {
            try Proxy(url: "socks5://user:secret@proxy:1080")
        }
    }

    // MARK: - The environment, read as curl reads it

    @Test func httpsUsesTheLowerCaseVariableBeforeTheUpperCase() throws {
        let settings = try Settings.environment(["https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2"])
        #expect(settings.https == Proxy(host: "lower", port: 1))
        #expect(try Settings.environment(["HTTPS_PROXY": "http://upper:2"]).https == Proxy(host: "upper", port: 2))
    }

    @Test func httpUsesOnlyTheLowerCaseVariableNeverHTTP_PROXY() throws {
        #expect(try Settings.environment(["HTTP_PROXY": "http://cgi-header:1"]).http == nil)
        #expect(try Settings.environment(["http_proxy": "http://lower:1"]).http == Proxy(host: "lower", port: 1))
        // An http_proxy never serves https, nor an https_proxy http.
        let both = try Settings.environment(["http_proxy": "http://plain:1", "https_proxy": "http://secure:2"])
        #expect(both.http == Proxy(host: "plain", port: 1))
        #expect(both.https == Proxy(host: "secure", port: 2))
    }

    @Test func allProxyIsTheFallbackOfEitherScheme() throws {
        let lower = try Settings.environment(["all_proxy": "http://all:1", "ALL_PROXY": "http://ALL:2", "https_proxy": "http://secure:3"])
        #expect(lower.http == Proxy(host: "all", port: 1))
        #expect(lower.https == Proxy(host: "secure", port: 3))
        let upper = try Settings.environment(["ALL_PROXY": "http://ALL:2"])
        #expect(upper.http == Proxy(host: "ALL", port: 2))
        #expect(upper.https == Proxy(host: "ALL", port: 2))
    }

    @Test func anEmptyVariableCountsAsUnset() throws {
        let settings = try Settings.environment(["https_proxy": "", "HTTPS_PROXY": "http://upper:2", "http_proxy": "", "no_proxy": "", "NO_PROXY": "example.com"])
        #expect(settings.https == Proxy(host: "upper", port: 2))
        #expect(settings.http == nil)
        #expect(settings.bypass.list == "example.com")
        #expect(try Settings.environment([:]) == .direct)
    }

    @Test func noProxyIsReadBeforeNO_PROXY() throws {
        #expect(try Settings.environment(["no_proxy": "a.test", "NO_PROXY": "b.test"]).bypass.list == "a.test")
        #expect(try Settings.environment(["NO_PROXY": "b.test"]).bypass.list == "b.test")
    }

    @Test func anUnusableVariableIsNamedUnlessAnotherWinsBeforeIt() throws {
        #expect(throws: WebImageError.invalidConfiguration(
            "https_proxy: unsupported proxy scheme \"socks5\" in socks5://proxy:1080: only http:// proxies are supported"
        )) {
            try Settings.environment(["https_proxy": "socks5://proxy:1080"])
        }
        // Both schemes have their own variable: ALL_PROXY is never read, as in curl.
        let settings = try Settings.environment(["http_proxy": "http://a:1", "https_proxy": "http://b:2", "ALL_PROXY": "socks5://c:3"])
        #expect(settings.http?.host == "a")
        #expect(settings.https?.host == "b")
    }

    @Test func eachSchemeGoesThroughItsOwnProxyExceptBypassedHosts() throws {
        let settings = Settings(http: Proxy(host: "plain", port: 1), https: Proxy(host: "secure", port: 2), bypass: Bypass("direct.test"))
        #expect(settings.proxy(for: try #require(URL(string: "http://img.test/a.png")))?.host == "plain")
        #expect(settings.proxy(for: try #require(URL(string: "https://img.test/a.png")))?.host == "secure")
        #expect(settings.proxy(for: try #require(URL(string: "https://cdn.direct.test/a.png"))) == nil)
        #expect(settings.proxy(for: try #require(URL(string: "ftp://img.test/a.png"))) == nil)
        #expect(Settings.direct.proxy(for: try #require(URL(string: "http://img.test/a.png"))) == nil)
    }

    // MARK: - no_proxy matching (curl 7.86+)

    @Test(arguments: [
        // Host names: the name itself or a subdomain, whatever the case and dots.
        ("example.com", "example.com", true),
        ("example.com", "img.example.com", true),
        ("example.com", "IMG.Example.COM", true),
        (".example.com", "example.com", true),
        (".example.com", "img.example.com", true),
        ("example.com.", "img.example.com", true),
        ("example.com", "img.example.com.", true),
        ("example.com", "myexample.com", false),
        ("img.example.com", "example.com", false),
        ("example.com", "example.org", false),
        // Lists: commas, blanks around entries; a blank not followed by a comma ends the list.
        ("a.test, example.com", "example.com", true),
        ("a.test,,example.com", "example.com", true),
        ("a.test example.com", "example.com", false),
        ("", "example.com", false),
        // `*` only as the whole list.
        ("*", "anything.test", true),
        ("*", "10.1.2.3", true),
        ("*,a.test", "anything.test", false),
        // IP addresses: exact, or CIDR ranges; names never match addresses.
        ("127.0.0.1", "127.0.0.1", true),
        ("127.0.0.1", "127.0.0.2", false),
        ("10.0.0.0/8", "10.20.30.40", true),
        ("10.0.0.0/8", "11.0.0.1", false),
        ("192.168.0.0/16", "192.168.7.9", true),
        ("192.168.1.0/24", "192.168.2.1", false),
        ("10.0.0.0/33", "10.0.0.1", false),
        ("10.0.0.1/0", "10.0.0.1", true),
        ("localhost", "127.0.0.1", false),
        ("127.0.0.1", "localhost", false),
        ("::1", "[::1]", true),
        ("fd00::/8", "[fd12:3456::1]", true),
        ("fd00::/8", "[fe80::1]", false),
        ("2001:db8::/33", "[2001:db8:7fff::1]", true),
        ("2001:db8::/33", "[2001:db8:8000::1]", false),
        ("10.0.0.0/8", "[::1]", false),
    ])
    func noProxyMatchesAsCurlDoes(_ list: String, _ host: String, _ expected: Bool) {
        #expect(Bypass(list).matches(host: host) == expected)
    }
}
