import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// Hits (and 429s) answered in the connection's pipeline (`ImmediateResponseHandler`): the same
/// answer as the full path (status, headers, body, HEAD, 304), counted the same, in order
/// behind a pipelined miss, and closing the connection when the client asks.
@Suite struct ImageServerImmediateResponseTests {
    static let png = Result { try ServerImages.quadrantsPNG(width: 64, height: 32) }

    static func cached(_ change: (inout ImageServer.Configuration) -> Void = { _ in }) -> ImageServer.Configuration {
        .testing {
            $0.resultCache = .memory
            $0.useETag = true
            $0.prometheusBind = "127.0.0.1:0"
            change(&$0)
        }
    }

    @Test func aHitIsTheFullPathsAnswer() async throws {
        try await RunningImageServer.with(origin: ["/a.png": .ok(try Self.png.get())], Self.cached()) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:20"], extension: "webp")
            let miss = try await server.request(path)
            let hit = try await server.request(path)
            #expect(miss.status == 200 && hit.status == 200)
            #expect(hit.body == miss.body)
            for name in ["Content-Type", "Cache-Control", "Content-Length", "ETag", "Server"] {
                #expect(hit.header(name) != nil && hit.header(name) == miss.header(name), "\(name)")
            }
            #expect(hit.header("Date") != nil)
            #expect(hit.header("Vary") == nil)

            let head = try await server.request(path, method: .HEAD)
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Length") == miss.header("Content-Length"))

            let etag = try #require(miss.header("ETag"))
            let notModified = try await server.request(path, headers: [("If-None-Match", etag)])
            #expect(notModified.status == 304 && notModified.body.isEmpty)
            #expect(notModified.header("ETag") == etag)

            #expect(origin.requestCount("/a.png") == 1)
            let metrics = try await server.metrics()
            #expect(prometheusValue(metrics, "webimage_result_cache_hits_total{level=\"memory\"}") == 3)
            #expect(prometheusValue(metrics, "webimage_requests_total{status=\"200\"}") == 3)
            #expect(prometheusValue(metrics, "webimage_requests_total{status=\"304\"}") == 1)
            #expect(prometheusValue(metrics, "webimage_request_duration_seconds_count") == 4)
        }
    }

    @Test func aWrongSecretIsRefusedEvenForACachedResult() async throws {
        try await RunningImageServer.with(origin: ["/a.png": .ok(try Self.png.get())], Self.cached { $0.secret = "s3cret" }) { origin, server async throws in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:20"])
            let authorised = [("Authorization", "Bearer s3cret")]
            #expect(try await server.request(path, headers: authorised).status == 200)
            #expect(try await server.request(path, headers: authorised).status == 200)
            #expect(try await server.request(path).status == 403)
            #expect(try await server.request(path, headers: [("Authorization", "Bearer nope")]).status == 403)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let routes: [String: LoopbackServer.Reply] = [
            "/slow.png": .delayed(.milliseconds(400), then: .ok(try ServerImages.quadrantsPNG(width: 30, height: 30))),
            "/fast.png": .ok(try Self.png.get()),
        ]
        try await RunningImageServer.with(origin: routes, Self.cached()) { origin, server in
            let slow = ImageURL.plain(origin.url("/slow.png"), ["w:10"], extension: "png")
            let fast = ImageURL.plain(origin.url("/fast.png"), ["w:20"], extension: "png")
            let fastBody = try await server.request(fast).body
            // A miss, then a hit, written at once on one connection: the hit must wait.
            let port = server.port
            let (first, second) = try await Self.onThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET \(slow) HTTP/1.1\r\nHost: a\r\n\r\nGET \(fast) HTTP/1.1\r\nHost: a\r\n\r\n")
                return (try connection.readResponse(), try connection.readResponse())
            }
            #expect(first.status == 200 && second.status == 200)
            #expect(try CodersManager.shared.decode(first.body).size == ImageSize(width: 10, height: 10))
            #expect(second.body == fastBody)
        }
    }

    @Test func aHitForAClientThatAsksToCloseIsAnsweredThenClosed() async throws {
        try await RunningImageServer.with(origin: ["/a.png": .ok(try Self.png.get())], Self.cached()) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:20"], extension: "png")
            let expected = try await server.request(path).body
            let port = server.port
            let (response, closed) = try await Self.onThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET \(path) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                let response = try connection.readResponse()
                return (response, connection.isClosedByServer())
            }
            #expect(response.status == 200 && response.body == expected)
            #expect(closed)
        }
    }

    @Test func theDateHeaderIsIMFFixdate() {
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(1_795_502_311) == "Tue, 24 Nov 2026 06:38:31 GMT")
        #expect(HTTPDate.now().hasSuffix(" GMT"))
    }

    /// Runs blocking socket work on a Dispatch thread, not on the cooperative pool.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
