import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
@testable import WebImage

/// Two `webimage serve` nodes behind a real nginx running the shipped
/// `deploy/nginx/webimage.conf`: 1,000 requests over 100 sources from 4 connections, one
/// node killed with SIGKILL halfway. No request fails but those the killed node was
/// answering; each node fetches a source at most once; the restarted node gets its share
/// back and serves it from its disk cache.
@Suite(.serialized) struct ImageServerNodesTests {
    typealias ServeProcess = ImageServerShutdownTests.ServeProcess

    struct Outcome: Sendable {
        var source: Int
        var status: Int?
        var node: String?
        var afterKill: Bool
    }

    static let sources = 100

    /// How many answers have arrived, and whether node A has been killed.
    final class Progress: Sendable {
        private let state = LockedValue((answered: 0, killed: false))
        var killed: Bool { state.withLock { $0.killed } }
        /// Counts an answer; its caller kills node A at the 500th.
        func answer() -> Int {
            state.withLock { state in
                state.answered += 1
                return state.answered
            }
        }

        /// Node A has been sent SIGKILL. Marked only once it has: marked before, another
        /// connection could read it and be answered by node A, still alive, from memory.
        func markKilled() {
            state.withLock { $0.killed = true }
        }
    }

    static func routes() throws -> [String: LoopbackServer.Reply] {
        var routes: [String: LoopbackServer.Reply] = [:]
        for index in 0..<sources {
            let color = RGBAColor(red: UInt8(index), green: UInt8(255 - index), blue: 7)
            let png = try CodersManager.shared.encode(Image(pixels: PixelBuffer(width: 24, height: 16, filling: color), hasAlpha: false), as: .png)
            routes["/s\(index).png"] = .ok(png, contentType: "image/png")
        }
        return routes
    }

    /// A node on `port` whose result cache lives in `cache`; its source requests carry
    /// `User-Agent: name`, so the origin can count each node's fetches.
    static func startNode(_ name: String, port: Int, cache: URL) async throws -> ServeProcess {
        try await ServeProcess.start(
            ["--insecure", "--bind", "127.0.0.1:\(port)", "--prometheus-bind", "127.0.0.1:0", "--workers", "2",
             "--result-cache", "memory,disk", "--cache-dir", cache.path],
            environment: ["WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "1", "WEBIMAGE_USER_AGENT": name]
        )
    }

    /// How many times each node fetched each source: `[node: [source: count]]`.
    static func fetchesByNode(_ origin: LoopbackServer) -> [String: [Int: Int]] {
        var counts: [String: [Int: Int]] = [:]
        for request in origin.requests {
            guard let source = Int(request.path.dropFirst(2).dropLast(4)) else { continue }
            counts[request.header("User-Agent") ?? "?", default: [:]][source, default: 0] += 1
        }
        return counts
    }

    /// The node that answered: the last address in nginx's `$upstream_addr`.
    static func node(_ header: String?) -> String? {
        header?.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// A node's `/metrics` text.
    static func metrics(of node: ServeProcess) async throws -> String {
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        defer { _ = client.shutdown() }
        guard let port = node.metricsPort else { return "" }
        return try await RunningImageServer.send(client: client, url: "http://127.0.0.1:\(port)/metrics", method: .GET, headers: [], timeout: .seconds(5)).text
    }

    @Test func aKilledNodeCostsOnlyItsAnswersInFlightAndItsShareComesBack() async throws {
        try #require(NginxProcess.isInstalled, "nginx is not installed (make test installs it)")
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-nodes-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let cacheA = base.appendingPathComponent("a", isDirectory: true)
        let cacheB = base.appendingPathComponent("b", isDirectory: true)
        try await LoopbackServer.with(try Self.routes()) { origin in
            let nodeA = try await Self.startNode("node-a", port: 0, cache: cacheA)
            defer { nodeA.killIfRunning() }
            let nodeB = try await Self.startNode("node-b", port: 0, cache: cacheB)
            defer { nodeB.killIfRunning() }
            let nginx = try await NginxProcess.start(nodes: [nodeA.port, nodeB.port])
            defer { nginx.stop() }
            let addressA = "127.0.0.1:\(nodeA.port)"
            let paths = (0..<Self.sources).map { ImageURL.plain(origin.url("/s\($0).png"), ["rs:fit:12:12"], extension: "png") }

            // 1,000 requests from 4 connections (one client each, one request at a time);
            // node A dies with SIGKILL when the 500th answer arrives.
            let progress = Progress()
            let outcomes = try await withThrowingTaskGroup(of: [Outcome].self) { group in
                for connection in 0..<4 {
                    group.addTask {
                        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
                        var mine: [Outcome] = []
                        for step in 0..<250 {
                            let source = (connection * 25 + step) % Self.sources
                            // Read before the request is sent: one sent after the kill
                            // cannot have been answered by node A.
                            let afterKill = progress.killed
                            let reply = try? await RunningImageServer.send(
                                client: client, url: "http://127.0.0.1:\(nginx.port)\(paths[source])",
                                method: .GET, headers: [], timeout: .seconds(20)
                            )
                            mine.append(Outcome(source: source, status: reply?.status, node: Self.node(reply?.header("X-Webimage-Node")), afterKill: afterKill))
                            if progress.answer() == 500 {
                                _ = nodeA.send(SIGKILL)
                                progress.markKilled()
                            }
                        }
                        try await client.shutdown()
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }

            #expect(outcomes.count == 1_000)
            let failed = outcomes.filter { $0.status != 200 }
            let shareA = Set(outcomes.filter { !$0.afterKill && $0.node == addressA }.map(\.source))
            let fetches = (0..<Self.sources).map { origin.requestCount("/s\($0).png") }
            print("nodes: 1,000 requests over 100 sources, 4 connections, node A killed after 500 answers: \(failed.count) failed (node A's answers in flight), A's share \(shareA.count) sources, origin fetches \(fetches.reduce(0, +)) (\(fetches.filter { $0 == 1 }.count) sources once, \(fetches.filter { $0 == 2 }.count) twice)")
            // Only what node A was answering when it died: at most one per connection.
            #expect(failed.count <= 4, "\(failed.count) requests failed")
            // Both nodes had a share, and A's went to B after the kill.
            #expect(shareA.count > 10 && shareA.count < 90, "node A's share: \(shareA.count)")
            #expect(outcomes.filter { $0.afterKill && $0.status == 200 }.allSatisfy { $0.node != addressA })
            // Each node fetched each source at most once (the origin tells them apart by
            // their User-Agent); B took over A's share after the kill.
            let byNode = Self.fetchesByNode(origin)
            for (node, counts) in byNode {
                for (source, count) in counts.sorted(by: { $0.key < $1.key }) where count > 1 {
                    let history = outcomes.filter { $0.source == source }.map { "\($0.node ?? "-")\($0.afterKill ? "+" : "")" }
                    // Node B's own counts say whether a job of its failed or was abandoned.
                    let metrics = try await Self.metrics(of: nodeB)
                        .split(separator: "\n").filter { $0.hasPrefix("webimage_errors_total") || $0.hasPrefix("webimage_requests_total") }
                    Issue.record("\(node) fetched source \(source) \(count) times; answers: \(history); node B: \(metrics)")
                }
            }
            #expect(Set(byNode.keys).isSubset(of: ["node-a", "node-b"]))
            let fetchedByA = Set((byNode["node-a"] ?? [:]).keys)
            #expect(fetchedByA.isSuperset(of: shareA))

            // Node A comes back on its port with its disk cache; once nginx's fail_timeout
            // (5 s in the shipped file) has passed, its share returns to it.
            let restarted = try await Self.startNode("node-a", port: nodeA.port, cache: cacheA)
            defer { restarted.killIfRunning() }
            try await Task.sleep(for: .seconds(6))
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            var back = 0
            for source in 0..<Self.sources {
                let reply = try await RunningImageServer.send(client: client, url: "http://127.0.0.1:\(nginx.port)\(paths[source])", method: .GET, headers: [], timeout: .seconds(20))
                #expect(reply.status == 200)
                let served = Self.node(reply.header("X-Webimage-Node"))
                #expect((served == addressA) == shareA.contains(source), "source \(source) served by \(served ?? "?")")
                if served == addressA { back += 1 }
            }
            try await client.shutdown()
            let fetchesAfter = (0..<Self.sources).map { origin.requestCount("/s\($0).png") }
            print("nodes: after the restart node A answered \(back) of its \(shareA.count) sources; origin fetches \(fetchesAfter.reduce(0, +)) (no new ones: its disk cache)")
            #expect(back == shareA.count)
            #expect(fetchesAfter == fetches)
            #expect(restarted.send(SIGTERM) && nodeB.send(SIGTERM))
            #expect(try await restarted.waitForExit(within: .seconds(10)) == 0)
            #expect(try await nodeB.waitForExit(within: .seconds(10)) == 0)
        }
    }

    @Test func theShippedConfigurationIsRewrittenOnlyWhereItNamesNodesAndItsPort() throws {
        let shipped = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent("deploy/nginx/webimage.conf"), encoding: .utf8)
        let (site, replaced) = NginxProcess.rewrite(shipped, nodes: [1111, 2222, 3333], port: 4444)
        #expect(replaced)
        #expect(site.contains("    server 127.0.0.1:1111 max_fails=3 fail_timeout=5s;"))
        #expect(site.contains("    server 127.0.0.1:3333 max_fails=3 fail_timeout=5s;"))
        #expect(site.contains("listen 127.0.0.1:4444;"))
        #expect(site.contains("hash $request_uri consistent;"))
        #expect(site.contains("proxy_next_upstream error timeout;"))
        #expect(!site.contains("8081") && !site.contains("8082"))
    }
}
