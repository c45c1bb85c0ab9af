import Foundation
import Testing
@testable import WebImage

/// The downloader through a real CONNECT proxy on loopback (``LoopbackProxy``): `http:` and
/// `https:` downloads tunnelled, Basic credentials checked, bypassed hosts and schemes
/// connecting directly, and the settings read from an environment.
@Suite(.timeLimit(.minutes(1)))
struct DownloaderProxyTests {
    let png: Data

    init() throws {
        png = try Corpus.data("TestImage.png")
    }

    /// Nothing here is about a time-out: a long one, so that a connection and a CONNECT
    /// tunnel made on a starved machine are not cut off by the 2-s default.
    func config(_ proxy: Downloader.ProxySettings, _ change: (inout Downloader.Configuration) -> Void = { _ in }) -> Downloader.Configuration {
        LoaderTesting.config(timeout: LoaderTesting.outlastingTimeout) { config in
            config.proxy = proxy
            change(&config)
        }
    }

    @Test func anHTTPDownloadGoesThroughTheProxy() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")]) { server in
            try await LoopbackProxy.with { proxy in
                try await LoaderTesting.withDownloader(config(.init(proxy: proxy.proxy()))) { downloader in
                    let result = try await downloader.load(server.url("/a.png"), options: DownloadRequestOptions(), progress: nil)
                    #expect(result.data == png)
                    #expect(result.image.size == ImageSize(width: 300, height: 300))
                }
                #expect(proxy.tunnels == ["127.0.0.1:\(server.port)"])
                #expect(server.requestCount("/a.png") == 1)
            }
        }
    }

    @Test func anHTTPSDownloadIsTunnelledWithCONNECT() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")], serverTLS: try PrivateCA.serverTLS()) { server in
            try await LoopbackProxy.with { proxy in
                let bundle = try PrivateCA.bundle()
                let config = config(.init(proxy: proxy.proxy())) { $0.trustRoots = .only(bundle) }
                try await LoaderTesting.withDownloader(config) { downloader in
                    // Two downloads: the second reuses the tunnelled connection.
                    for path in ["/a.png", "/a.png?again"] {
                        let result = try await downloader.load(server.url(path), options: DownloadRequestOptions(), progress: nil)
                        #expect(result.data == png)
                    }
                }
                #expect(proxy.tunnels == ["127.0.0.1:\(server.port)"])
                #expect(server.requestCount("/a.png") == 2)
            }
        }
    }

    @Test func theProxysCredentialsAreSentAndAWrongOrMissingOneIsA407Error() async throws {
        let credentials = LoopbackProxy.Credentials(username: "alice", password: "s3cret:x")
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")]) { server in
            try await LoopbackProxy.with(credentials: credentials) { proxy in
                let good = config(.init(proxy: proxy.proxy(username: "alice", password: "s3cret:x")))
                try await LoaderTesting.withDownloader(good) { downloader in
                    let result = try await downloader.load(server.url("/a.png"), options: DownloadRequestOptions(), progress: nil)
                    #expect(result.data == png)
                }
                #expect(proxy.tunnels.count == 1)
                for wrong in [proxy.proxy(), proxy.proxy(username: "alice", password: "guess")] {
                    try await LoaderTesting.withDownloader(config(.init(proxy: wrong))) { downloader in
                        let error = await LoaderTesting.error(loading: server.url("/a.png"), with: downloader)
                        #expect(error == .proxyAuthenticationRequired)
                    }
                }
                #expect(proxy.refusedAuthorizations == [nil, "Basic " + Data("alice:guess".utf8).base64EncodedString()])
                #expect(proxy.tunnels.count == 1)
                #expect(server.requestCount("/a.png") == 1)
            }
        }
    }

    @Test func aBypassedHostConnectsDirectly() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")]) { server in
            try await LoopbackProxy.with { proxy in
                for bypass in ["127.0.0.1", "127.0.0.0/8", "*"] {
                    let settings = Downloader.ProxySettings(proxy: proxy.proxy(), bypass: .init(bypass))
                    try await LoaderTesting.withDownloader(config(settings)) { downloader in
                        let result = try await downloader.load(server.url("/a.png"), options: DownloadRequestOptions(), progress: nil)
                        #expect(result.data == png)
                    }
                }
                #expect(proxy.tunnels.isEmpty)
                #expect(server.requestCount("/a.png") == 3)
            }
        }
    }

    @Test func oneDownloaderRoutesEachSchemeOnItsOwnClient() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")]) { plain in
            try await LoopbackServer.with(["/b.png": .ok(png, contentType: "image/png")], serverTLS: try PrivateCA.serverTLS()) { secure in
                try await LoopbackProxy.with { proxy in
                    // http goes through the proxy, https directly, from the same downloader.
                    let settings = Downloader.ProxySettings(http: proxy.proxy())
                    let bundle = try PrivateCA.bundle()
                    let config = config(settings) { $0.trustRoots = .only(bundle) }
                    try await LoaderTesting.withDownloader(config) { downloader in
                        async let a = downloader.load(plain.url("/a.png"), options: DownloadRequestOptions(), progress: nil)
                        async let b = downloader.load(secure.url("/b.png"), options: DownloadRequestOptions(), progress: nil)
                        let (first, second) = try await (a, b)
                        #expect(first.data == png)
                        #expect(second.data == png)
                    }
                    #expect(proxy.tunnels == ["127.0.0.1:\(plain.port)"])
                }
            }
        }
    }

    @Test func theEnvironmentsProxyAndNoProxyAreHonoured() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")]) { server in
            try await LoopbackProxy.with { proxy in
                let proxied = try Downloader.ProxySettings.environment(["http_proxy": proxy.url, "no_proxy": "localhost"])
                try await LoaderTesting.withDownloader(config(proxied)) { downloader in
                    _ = try await downloader.load(server.url("/a.png"), options: DownloadRequestOptions(), progress: nil)
                }
                #expect(proxy.tunnels.count == 1)
                let bypassed = try Downloader.ProxySettings.environment(["http_proxy": proxy.url, "NO_PROXY": "localhost,127.0.0.1"])
                try await LoaderTesting.withDownloader(config(bypassed)) { downloader in
                    _ = try await downloader.load(server.url("/a.png"), options: DownloadRequestOptions(), progress: nil)
                }
                #expect(proxy.tunnels.count == 1)
                #expect(server.requestCount("/a.png") == 2)
            }
        }
    }

    @Test func aPinnedDownloadNeverGoesThroughTheProxy() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")]) { server in
            try await LoopbackProxy.with { proxy in
                try await LoaderTesting.withDownloader(config(.init(proxy: proxy.proxy()))) { downloader in
                    var options = DownloadRequestOptions()
                    options.pinnedAddress = "127.0.0.1"
                    let result = try await downloader.load(server.url("/a.png"), options: options, progress: nil)
                    #expect(result.data == png)
                }
                #expect(proxy.tunnels.isEmpty)
            }
        }
    }
}
