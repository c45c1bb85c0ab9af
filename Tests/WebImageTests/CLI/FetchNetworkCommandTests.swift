import Foundation
import Testing
@testable import WebImage

/// `webimage fetch` and `prefetch` with the network options, against loopback servers and
/// the loopback proxy: the proxy of `--proxy` and of curl's environment variables,
/// `no_proxy` and `--noproxy`, `--cacert`, `--cert`/`--key`, `-k` and
/// `--max-connections-per-host`.
///
/// Serialized: its tests start about twenty `webimage` processes, and all at once they held
/// the two cores long enough to delay the socket timings of the suites sharing its pass.
@Suite(.serialized) struct FetchNetworkCommandTests: CommandTesting {
    /// Runs `fetch URL --cache-dir (a new folder)` plus `arguments`, so no run reads
    /// another's cache.
    func fetch(_ url: URL, _ arguments: [String] = [], environment: [String: String] = [:]) async throws -> WebImageCommand.Run {
        let cache = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        return try await run(["fetch", url.absoluteString, "--cache-dir", cache.path] + arguments, environment: environment)
    }

    @Test func theProxyComesFromTheFlagOrFromTheEnvironmentAsCurlReadsIt() async throws {
        let png = try pngData(width: 16, height: 16)
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await LoopbackProxy.with { proxy in
                let url = server.url("/a.png")
                let flag = try await fetch(url, ["--proxy", proxy.url])
                #expect(flag.status == 0, "\(flag.stderr)")
                #expect(proxy.tunnels.count == 1)
                let environment = try await fetch(url, environment: ["http_proxy": proxy.url])
                #expect(environment.status == 0, "\(environment.stderr)")
                #expect(proxy.tunnels.count == 2)
                // Never the upper-case HTTP_PROXY, and never a host no_proxy or --noproxy names.
                let directRuns: [(arguments: [String], environment: [String: String])] = [
                    ([], ["HTTP_PROXY": proxy.url]),
                    ([], ["http_proxy": proxy.url, "no_proxy": "127.0.0.1"]),
                    (["--proxy", proxy.url], ["NO_PROXY": "127.0.0.0/8"]),
                    (["--proxy", proxy.url, "--noproxy", "*"], [:]),
                    (["--proxy", ""], ["http_proxy": proxy.url]),
                ]
                for (arguments, variables) in directRuns {
                    let direct = try await fetch(url, arguments, environment: variables)
                    #expect(direct.status == 0, "\(arguments) \(variables): \(direct.stderr)")
                }
                #expect(proxy.tunnels.count == 2)
                #expect(server.requestCount("/a.png") == 7)
            }
        }
    }

    @Test func theProxysCredentialsComeFromItsURL() async throws {
        let png = try pngData(width: 16, height: 16)
        let credentials = LoopbackProxy.Credentials(username: "alice", password: "pw")
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await LoopbackProxy.with(credentials: credentials) { proxy in
                let good = try await fetch(server.url("/a.png"), ["--proxy", "http://alice:pw@127.0.0.1:\(proxy.port)"])
                #expect(good.status == 0, "\(good.stderr)")
                let bad = try await fetch(server.url("/a.png"), environment: ["http_proxy": "http://alice:nope@127.0.0.1:\(proxy.port)"])
                #expect(bad.status == 1)
                #expect(bad.stderr.contains("proxy authentication required"), "\(bad.stderr)")
                #expect(!bad.stderr.contains("nope"))
                #expect(proxy.tunnels.count == 1)
            }
        }
    }

    @Test func prefetchGoesThroughTheProxyToo() async throws {
        let png = try pngData(width: 16, height: 16)
        try await LoopbackServer.with(["/a.png": pngReply(png), "/b.png": pngReply(png)]) { server in
            try await LoopbackProxy.with { proxy in
                let folder = try scratchFolder()
                defer { try? FileManager.default.removeItem(at: folder) }
                let list = folder.appendingPathComponent("urls.txt")
                try Data("\(server.url("/a.png"))\n\(server.url("/b.png"))\n".utf8).write(to: list)
                let run = try await run(["prefetch", "--from", list.path, "--cache-dir", folder.path], environment: ["http_proxy": proxy.url])
                #expect(run.status == 0, "\(run.stderr)")
                #expect(proxy.tunnels.count >= 1)
                #expect(server.requestCount("/a.png") == 1)
                #expect(server.requestCount("/b.png") == 1)
            }
        }
    }

    @Test func anUnusableProxyVariableStopsTheCommandWithItsName() async throws {
        let run = try await fetch(try #require(URL(string: "http://127.0.0.1:9/a.png")), environment: ["http_proxy": "socks5://127.0.0.1:1080"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("http_proxy: unsupported proxy scheme"), "\(run.stderr)")
    }

    @Test func cacertCertAndKeyReachAServerOfAPrivateCA() async throws {
        let png = try pngData(width: 16, height: 16)
        let tls = try PrivateCA.serverTLS(requiringClientCertificate: true)
        try await LoopbackServer.with(["/a.png": pngReply(png)], serverTLS: tls) { server in
            let url = server.url("/a.png")
            let untrusted = try await fetch(url)
            #expect(untrusted.status == 1)
            let noCertificate = try await fetch(url, ["--cacert", PrivateCA.path("ca.pem")])
            #expect(noCertificate.status == 1)
            let full = try await fetch(url, ["--cacert", PrivateCA.path("ca.pem"), "--cert", PrivateCA.path("client.pem"), "--key", PrivateCA.path("client-key.pem")])
            #expect(full.status == 0, "\(full.stderr)")
            let insecure = try await fetch(url, ["-k", "--cert", PrivateCA.path("client.pem"), "--key", PrivateCA.path("client-key.pem"), "--http1.1"])
            #expect(insecure.status == 0, "\(insecure.stderr)")
            #expect(server.requestCount("/a.png") == 2)
        }
    }

    @Test func anUnreadableCAFileIsNamed() async throws {
        let run = try await fetch(try #require(URL(string: "https://127.0.0.1:9/a.png")), ["--cacert", "/nonexistent/ca.pem"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot read the certificate file /nonexistent/ca.pem"), "\(run.stderr)")
    }

    @Test func maxConnectionsPerHostLimitsTheConnections() async throws {
        let png = try pngData(width: 16, height: 16)
        let paths = ["/0.png", "/1.png", "/2.png"]
        let routes = Dictionary(uniqueKeysWithValues: paths.map { ($0, LoopbackServer.Reply.delayed(.milliseconds(100), then: pngReply(png))) })
        try await LoopbackServer.with(routes) { server in
            let cache = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: cache) }
            let run = try await run(["fetch"] + paths.map { server.url($0).absoluteString }
                + ["--cache-dir", cache.path, "--concurrency", "3", "--max-connections-per-host", "1"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(server.acceptedConnectionCount == 1)
        }
    }
}
