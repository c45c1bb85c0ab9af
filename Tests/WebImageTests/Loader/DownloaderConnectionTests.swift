import Foundation
import Testing
@testable import WebImage

/// The downloader's connection settings on the wire: HTTP/2 offered or not in the TLS
/// handshake, and the number of connections opened to one host.
@Suite(.timeLimit(.minutes(1)))
struct DownloaderConnectionTests {
    let png: Data

    init() throws {
        png = try Corpus.data("TestImage.png")
    }

    /// The package has no HTTP/2 server (swift-nio-http2 is only AsyncHTTPClient's
    /// dependency), so the server offers `h2` and `http/1.1` with ALPN and records what the
    /// handshake agreed on: `h2` shows the client offered it. Its HTTP/1.1 handler cannot
    /// then answer an HTTP/2 request, so only the HTTP/1.1 download is expected to succeed.
    @Test func http2IsOfferedOnlyWhenAllowed() async throws {
        let bundle = try PrivateCA.bundle()
        let tls = try PrivateCA.serverTLS(alpn: ["h2", "http/1.1"])
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")], serverTLS: tls) { server in
            let off = LoaderTesting.config { config in
                config.trustRoots = .only(bundle)
                config.allowsHTTP2 = false
            }
            try await LoaderTesting.withDownloader(off) { downloader in
                let result = try await downloader.load(server.url("/a.png"), options: DownloadRequestOptions(), progress: nil)
                #expect(result.data == png)
            }
            #expect(server.negotiatedProtocols == ["http/1.1"])

            let on = LoaderTesting.config { $0.trustRoots = .only(bundle) }
            #expect(on.allowsHTTP2)
            try await LoaderTesting.withDownloader(on) { downloader in
                _ = await LoaderTesting.error(loading: server.url("/a.png"), with: downloader)
            }
            #expect(server.negotiatedProtocols.count == 2)
            #expect(server.negotiatedProtocols.last == "h2")
        }
    }

    @Test(arguments: [1, 2])
    func concurrentDownloadsOfOneHostShareAtMostTheConnectionLimit(limit: Int) async throws {
        let paths = (0..<6).map { "/\($0).png" }
        let routes = Dictionary(uniqueKeysWithValues: paths.map {
            ($0, LoopbackServer.Reply.delayed(.milliseconds(100), then: .ok(png, contentType: "image/png")))
        })
        try await LoopbackServer.with(routes) { server in
            // Requests waiting for a connection count against the timeout: a long one, so
            // that a loaded machine's slow turns cannot fail the queued downloads.
            let config = LoaderTesting.config(timeout: .seconds(20)) { config in
                config.maxConcurrentDownloads = 6
                config.maxConnectionsPerHost = limit
            }
            try await LoaderTesting.withDownloader(config) { downloader in
                try await withThrowingTaskGroup(of: Data?.self) { group in
                    for path in paths {
                        group.addTask { try await downloader.load(server.url(path), options: DownloadRequestOptions(), progress: nil).data }
                    }
                    for try await data in group { #expect(data == png) }
                }
            }
            // At most the limit (fewer only if a loaded machine sent the requests so far apart
            // that a connection was free again; the next test shows six are opened when allowed).
            #expect((1...limit).contains(server.acceptedConnectionCount), "\(server.acceptedConnectionCount) connections")
            #expect(server.maxOpenRequests <= limit)
        }
    }

    @Test func sixConcurrentDownloadsOpenSixConnectionsUnderTheDefaultLimit() async throws {
        // The gate opens only once all six requests are open together, which a limit below
        // six would never allow. Until then each body drips a byte per 50 ms (for at most
        // LoopbackServer.gatedHoldLimit, 40 s), so a loaded machine has time to send all six.
        let gate = ReplyGate()
        let paths = (0..<6).map { "/\($0).png" }
        let routes = Dictionary(uniqueKeysWithValues: paths.map {
            ($0, LoopbackServer.Reply.gated(png, firstPart: 10, gate: gate, interval: .milliseconds(50), contentType: "image/png"))
        })
        try await LoopbackServer.with(routes) { server in
            let config = LoaderTesting.config { $0.maxConcurrentDownloads = 6 }
            #expect(config.maxConnectionsPerHost == nil)
            try await LoaderTesting.withDownloader(config) { downloader in
                try await withThrowingTaskGroup(of: Data?.self) { group in
                    for path in paths {
                        group.addTask { try await downloader.load(server.url(path), options: DownloadRequestOptions(), progress: nil).data }
                    }
                    let deadline = ContinuousClock.now + .seconds(20)
                    while server.requests.count < 6, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    gate.open()
                    for try await data in group { #expect(data == png) }
                }
            }
            #expect(server.maxOpenRequests == 6)
            #expect(server.acceptedConnectionCount == 6)
        }
    }
}
