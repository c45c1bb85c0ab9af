import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// The source policy end to end, through a real server and real origins, all on loopback:
/// an origin on 127.0.0.1 refused by default and served once loopback is allowed, a redirect
/// to an address outside the allowed network refused before any connection, a name that
/// resolves to loopback refused, numeric spellings of 127.0.0.1 refused, the allow-list, and
/// the redirect limit. Other ranges are the classifier's tests: nothing here connects
/// anywhere but loopback.
@Suite struct ImageServerSourcePolicyTests {
    static let png = Result { try ServerImages.quadrantsPNG(width: 32, height: 32) }

    /// The test settings with the server's default source-address policy (loopback closed).
    static func closed(_ change: (inout ImageServer.Configuration) -> Void = { _ in }) -> ImageServer.Configuration {
        .testing {
            $0.sourceAddresses = SourceAddressPolicy()
            change(&$0)
        }
    }

    /// Requests `source` (resized to 10 px) from a server with `configuration`.
    static func fetch(_ source: String, _ configuration: ImageServer.Configuration) async throws -> RunningImageServer.Reply {
        let url = try #require(URL(string: source))
        return try await RunningImageServer.with(configuration) { server in
            try await server.request(ImageURL.plain(url, ["w:10"]))
        }
    }

    static func expectRefused(_ reply: RunningImageServer.Reply, mentions: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 404, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.text.contains(mentions), "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.text.hasSuffix("\n") && !reply.text.dropLast().contains("\n"), sourceLocation: sourceLocation)
    }

    /// A refusal by address: the body says the rule, never the address the name reached or
    /// its class (a prober would map the server's network with them); the log has both.
    static func expectAddressRefused(_ reply: RunningImageServer.Reply, hiding: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        expectRefused(reply, mentions: "may not fetch from", sourceLocation: sourceLocation)
        for secret in hiding {
            #expect(!reply.text.contains(secret), "\(reply.text) names \(secret)", sourceLocation: sourceLocation)
        }
    }

    @Test func loopbackOriginIsRefusedByDefaultAndServedWhenAllowed() async throws {
        try await LoopbackServer.with(["/a.png": .ok(try Self.png.get(), contentType: "image/png")]) { origin in
            let source = origin.url("/a.png").absoluteString
            Self.expectAddressRefused(try await Self.fetch(source, Self.closed()), hiding: ["loopback", "127.0.0.1"])
            #expect(origin.requests.isEmpty)
            let allowed = try await Self.fetch(source, Self.closed { $0.sourceAddresses.allowsLoopback = true })
            #expect(allowed.status == 200, "\(allowed.text)")
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test func redirectOutOfTheAllowedNetworkIsRefusedBeforeConnecting() async throws {
        try await ConnectionCountingListener.with(host: "127.0.0.2") { elsewhere in
            let routes: [String: LoopbackServer.Reply] = ["/r.png": .redirect(to: "http://127.0.0.2:\(elsewhere.port)/a.png")]
            try await LoopbackServer.with(routes) { origin in
                let network = try IPNetwork(parsing: "127.0.0.1/32")
                let configuration = Self.closed { $0.sourceAddresses.allowedNetworks = [network] }
                let reply = try await Self.fetch(origin.url("/r.png").absoluteString, configuration)
                Self.expectAddressRefused(reply, hiding: ["127.0.0.2", "loopback"])
                #expect(origin.requestCount("/r.png") == 1, "the allowed network's origin is reached")
                #expect(elsewhere.connections == 0)
            }
        }
    }

    /// A connection the origin's address refuses: the body says the source could not be
    /// fetched, not the system's words for why (errno, the address), which would make the
    /// server a port scanner for whoever can name a source.
    @Test func aRefusedConnectionIsAnsweredWithoutItsReason() async throws {
        let refusing = try RefusingLoopbackPort()
        let reply = try await Self.fetch("http://127.0.0.1:\(refusing.port)/a.png", Self.closed { $0.sourceAddresses.allowsLoopback = true })
        withExtendedLifetime(refusing) {}
        #expect(reply.status == 502, "\(reply.text)")
        #expect(reply.text == "the source could not be fetched\n", "\(reply.text)")
    }

    @Test func nameThatResolvesToLoopbackIsRefused() async throws {
        try await LoopbackServer.with(["/a.png": .ok(try Self.png.get(), contentType: "image/png")]) { origin in
            let reply = try await Self.fetch("http://localhost:\(origin.port)/a.png", Self.closed())
            Self.expectAddressRefused(reply, hiding: ["localhost", "127.0.0.1", "loopback"])
            #expect(origin.requests.isEmpty)
        }
    }

    @Test(arguments: ["2130706433", "0x7f.1", "127.1", "0177.0.0.1", "0x7f000001", "[::ffff:127.0.0.1]"])
    func numericSpellingOfLoopbackIsRefused(_ host: String) async throws {
        try await LoopbackServer.with(["/a.png": .ok(try Self.png.get(), contentType: "image/png")]) { origin in
            let reply = try await Self.fetch("http://\(host):\(origin.port)/a.png", Self.closed())
            Self.expectAddressRefused(reply, hiding: ["loopback", "127.0.0.1"])
            #expect(origin.requests.isEmpty)
        }
    }

    /// With loopback open, a numeric host is fetched from the address it names (the
    /// connection pinned there; the `Host` header as written).
    @Test func numericSpellingIsFetchedFromTheAddressItReachesWhenAllowed() async throws {
        try await LoopbackServer.with(["/a.png": .ok(try Self.png.get(), contentType: "image/png")]) { origin in
            let reply = try await Self.fetch("http://2130706433:\(origin.port)/a.png", Self.closed { $0.sourceAddresses.allowsLoopback = true })
            #expect(reply.status == 200, "\(reply.text)")
            #expect(origin.requests.first?.header("Host") == "2130706433:\(origin.port)")
        }
    }

    @Test func allowListAdmitsItsPrefixAndRefusesTheRest() async throws {
        let png = try Self.png.get()
        try await LoopbackServer.with(["/ok/a.png": .ok(png, contentType: "image/png"), "/no/a.png": .ok(png, contentType: "image/png")]) { origin in
            let pattern = try SourcePattern(parsing: "http://127.0.0.1:\(origin.port)/ok/")
            let configuration = ImageServer.Configuration.testing { $0.allowedSources = [pattern] }
            try await RunningImageServer.with(configuration) { server in
                let admitted = try await server.request(ImageURL.plain(origin.url("/ok/a.png"), ["w:10"]))
                #expect(admitted.status == 200, "\(admitted.text)")
                let refused = try await server.request(ImageURL.plain(origin.url("/no/a.png"), ["w:10"]))
                Self.expectRefused(refused, mentions: "WEBIMAGE_ALLOWED_SOURCES")
            }
            #expect(origin.requestCount("/no/a.png") == 0)
        }
    }

    @Test func redirectOutOfTheAllowListIsRefused() async throws {
        let png = try Self.png.get()
        let routes: [String: LoopbackServer.Reply] = ["/ok/r.png": .redirect(to: "/no/a.png"), "/no/a.png": .ok(png, contentType: "image/png")]
        try await LoopbackServer.with(routes) { origin in
            let pattern = try SourcePattern(parsing: "http://127.0.0.1:\(origin.port)/ok/")
            let configuration = ImageServer.Configuration.testing { $0.allowedSources = [pattern] }
            let reply = try await Self.fetch(origin.url("/ok/r.png").absoluteString, configuration)
            Self.expectRefused(reply, mentions: "WEBIMAGE_ALLOWED_SOURCES")
            #expect(origin.requestCount("/ok/r.png") == 1)
            #expect(origin.requestCount("/no/a.png") == 0)
        }
    }

    @Test func redirectsAreFollowedUpToTheLimit() async throws {
        let png = try Self.png.get()
        let routes: [String: LoopbackServer.Reply] = [
            "/1": .redirect(to: "/2", status: 301), "/2": .redirect(to: "/3", status: 307), "/3": .redirect(to: "/a.png", status: 308),
            "/a.png": .ok(png, contentType: "image/png"), "/loop": .redirect(to: "/loop"),
        ]
        try await LoopbackServer.with(routes) { origin in
            let followed = try await Self.fetch(origin.url("/1").absoluteString, .testing { $0.maxRedirects = 3 })
            #expect(followed.status == 200, "\(followed.text)")
            let tooMany = try await Self.fetch(origin.url("/1").absoluteString, .testing { $0.maxRedirects = 2 })
            #expect(tooMany.status == 502 && tooMany.text.contains("WEBIMAGE_MAX_REDIRECTS"), "\(tooMany.text)")
            let loop = try await Self.fetch(origin.url("/loop").absoluteString, .testing { $0.maxRedirects = 4 })
            #expect(loop.status == 502, "\(loop.text)")
            #expect(origin.requestCount("/loop") == 5)
        }
    }

    @Test func redirectToAnotherSchemeIsRefused() async throws {
        try await LoopbackServer.with(["/r.png": .redirect(to: "file:///etc/passwd")]) { origin in
            let reply = try await Self.fetch(origin.url("/r.png").absoluteString, .testing())
            Self.expectRefused(reply, mentions: "does not fetch")
        }
    }
}
