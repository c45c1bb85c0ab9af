import Foundation
import NIOHTTP1
import Testing
@testable import WebImage

/// ``DownloadRequestOptions/pinnedAddress``: the connection goes to the pinned address
/// whatever the host name resolves to, the `Host` header keeps the name, redirects come back
/// unfollowed, a URL naming another address is refused, and pinned and unpinned callers
/// never share a request. Loopback only: the names used are `localhost`, and the pins
/// 127.0.0.1 and 127.0.0.2.
@Suite("Downloader pinned address", .timeLimit(.minutes(1)))
struct DownloaderPinnedAddressTests {
    static func pinned(_ address: String) -> DownloadRequestOptions {
        var options = DownloadRequestOptions()
        options.pinnedAddress = address
        return options
    }

    @Test func connectionGoesToThePinWithTheNameInTheHostHeader() async throws {
        let body = Data("pinned".utf8)
        try await LoopbackServer.with(["/a.bin": .ok(body)]) { origin in
            try await LoaderTesting.withDownloader { downloader in
                let url = try #require(URL(string: "http://localhost:\(origin.port)/a.bin"))
                let result = try await downloader.loadData(from: url, options: Self.pinned("127.0.0.1"))
                #expect(result.data == body)
                #expect(origin.requests.first?.header("Host") == "localhost:\(origin.port)")
            }
        }
    }

    /// A pin is a client setting; the downloader keeps the client of a pin, so the next
    /// download pinned the same way goes over the same connection.
    @Test func sequentialPinnedDownloadsReuseTheirConnection() async throws {
        try await LoopbackServer.with(["/a.bin": .ok(Data("a".utf8)), "/b.bin": .ok(Data("b".utf8))]) { origin in
            try await LoaderTesting.withDownloader { downloader in
                let host = "localhost:\(origin.port)"
                for path in ["/a.bin", "/b.bin"] {
                    let url = try #require(URL(string: "http://\(host)\(path)"))
                    _ = try await downloader.loadData(from: url, options: Self.pinned("127.0.0.1"))
                }
                #expect(origin.requests.count == 2)
                #expect(origin.acceptedConnectionCount == 1)
            }
            // The downloader's shutdown closes it.
            #expect(try await origin.waitForOpenConnections(atMost: 0))
        }
    }

    /// `localhost` resolves to 127.0.0.1 (and ::1), never 127.0.0.2: a connection there can
    /// only come from the pin.
    @Test func theNameIsNotResolvedWhenPinned() async throws {
        try await ConnectionCountingListener.with(host: "127.0.0.2") { listener in
            try await LoaderTesting.withDownloader { downloader in
                let url = try #require(URL(string: "http://localhost:\(listener.port)/a.bin"))
                await #expect(throws: WebImageError.self) {
                    try await downloader.loadData(from: url, options: Self.pinned("127.0.0.2"))
                }
                #expect(listener.connections >= 1)
            }
        }
    }

    @Test func redirectComesBackUnfollowed() async throws {
        let routes: [String: LoopbackServer.Reply] = ["/r": .redirect(to: "/a.bin"), "/a.bin": .ok(Data("a".utf8))]
        try await LoopbackServer.with(routes) { origin in
            let accepting = LoaderTesting.config { $0.acceptableStatusCodes.insert(302) }
            try await LoaderTesting.withDownloader(accepting) { downloader in
                let result = try await downloader.loadData(from: origin.url("/r"), options: Self.pinned("127.0.0.1"))
                #expect(result.response?.statusCode == 302)
                #expect(result.response?.headers.first(name: "Location") == "/a.bin")
            }
            // Without 302 accepted, the redirect is the download's failure.
            _ = try await LoaderTesting.withDownloader { downloader in
                await #expect(throws: WebImageError.invalidDownloadStatusCode(302)) {
                    try await downloader.loadData(from: origin.url("/r"), options: Self.pinned("127.0.0.1"))
                }
            }
            #expect(origin.requestCount("/r") == 2)
            #expect(origin.requestCount("/a.bin") == 0)
        }
    }

    @Test(arguments: ["127.0.0.2", "localhost", "0x7f.1", ""])
    func aPinThatCannotHoldIsRefusedBeforeAnyConnection(_ pin: String) async throws {
        try await LoopbackServer.with(["/a.bin": .ok(Data("a".utf8))]) { origin in
            try await LoaderTesting.withDownloader { downloader in
                await #expect {
                    try await downloader.loadData(from: origin.url("/a.bin"), options: Self.pinned(pin))
                } throws: { error in
                    guard case WebImageError.invalidURL = error else { return false }
                    return true
                }
                #expect(origin.requests.isEmpty)
            }
        }
    }

    @Test func pinnedCallersShareARequestOnlyWithPinnedCallers() async throws {
        // The reply is held until the gate opens, and the three callers are registered
        // before it does (each call registers before it returns): the second pinned caller
        // asks while the first's request surely runs. (Held 2 s, with callers started from
        // `async let` tasks, it counted on a starved pool starting them within that time.)
        let gate = ReplyGate()
        defer { gate.open() }
        try await LoopbackServer.with(["/a.bin": Self.held(gate)]) { origin in
            try await LoaderTesting.withDownloader { downloader in
                let url = origin.url("/a.bin")
                let outcomes = DataOutcomes()
                downloader.downloadData(with: url, options: Self.pinned("127.0.0.1"), completion: outcomes.record)
                downloader.downloadData(with: url, options: Self.pinned("127.0.0.1"), completion: outcomes.record)
                downloader.downloadData(with: url, completion: outcomes.record)
                gate.open()
                let ended = await waitUntil(.seconds(30)) { outcomes.all.count == 3 }
                #expect(ended)
                #expect(outcomes.all.allSatisfy { (try? $0.get())?.data == Self.heldBody })
                #expect(origin.requestCount("/a.bin") == 2)
            }
        }
    }

    /// A review's finding: the key said only "pinned", so a caller pinned to an address its
    /// own checks vetted joined a download pinned elsewhere and got that address's bytes.
    /// Pinned to 127.0.0.2, where nothing listens, the second caller fails on its own.
    @Test func callersPinnedToDifferentAddressesNeverShareARequest() async throws {
        // The first reply is held until the gate opens, which it does only once the second
        // caller has its outcome: a caller that had joined the first would still be waiting.
        let gate = ReplyGate()
        defer { gate.open() }
        try await LoopbackServer.with(["/a.bin": Self.held(gate)]) { origin in
            try await LoaderTesting.withDownloader { downloader in
                let url = origin.url("/a.bin")
                let first = DataOutcomes(), second = DataOutcomes()
                downloader.downloadData(with: url, options: Self.pinned("127.0.0.1"), completion: first.record)
                downloader.downloadData(with: url, options: Self.pinned("127.0.0.2"), completion: second.record)
                let secondEnded = await waitUntil(.seconds(30)) { !second.all.isEmpty }
                #expect(secondEnded, "the second caller waits for the first's reply")
                gate.open()
                let firstEnded = await waitUntil(.seconds(30)) { !first.all.isEmpty }
                #expect(firstEnded)
                #expect(second.all.count == 1 && second.all.allSatisfy { (try? $0.get()) == nil })
                #expect(first.all.count == 1 && first.all.allSatisfy { (try? $0.get())?.data == Self.heldBody })
                #expect(origin.requestCount("/a.bin") == 1)
            }
        }
    }

    static let heldBody = Data(repeating: 97, count: 4000)

    /// A reply held (a byte every 20 ms, so the download never looks idle) until `gate` opens.
    static func held(_ gate: ReplyGate) -> LoopbackServer.Reply {
        .gated(heldBody, firstPart: 1, gate: gate, interval: .milliseconds(20), contentType: "application/octet-stream")
    }
}
