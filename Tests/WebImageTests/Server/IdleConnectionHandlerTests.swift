import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
@testable import WebImage
@testable import WebImageServer

/// The server's idle-connection timer (`WEBIMAGE_KEEP_ALIVE_TIMEOUT`): its decisions alone,
/// then through a real server, where the requests answered in the pipeline must count as
/// activity; and the pipeline's cache-hit answers yielding to back-pressure.
@Suite struct IdleConnectionHandlerTests {
    typealias Machine = IdleConnectionHandler.StateMachine
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    static let head = HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "a", path: "/x"))

    @Test func aConnectionWithNothingArrivingIsClosedAtTheTimeout() {
        let machine = Machine(timeout: .seconds(10), now: Self.start)
        #expect(machine.firstDeadline == Self.start + .seconds(10))
        #expect(machine.timerFired(now: Self.start + .seconds(9)) == .rearm(Self.start + .seconds(10)))
        #expect(machine.timerFired(now: Self.start + .seconds(10)) == .close)
    }

    @Test func eachWholePartOrEndedResponsePutsTheDeadlineBack() {
        var machine = Machine(timeout: .seconds(10), now: Self.start)
        machine.partRead(Self.head, now: Self.start + .seconds(5))
        // A head without its end is a request still being read: the client's time.
        #expect(machine.timerFired(now: Self.start + .seconds(10)) == .rearm(Self.start + .seconds(15)))
        #expect(machine.timerFired(now: Self.start + .seconds(15)) == .close)
        machine.partRead(.end(nil), now: Self.start + .seconds(6))
        // Read whole and not answered: the server's time, never a reason to close.
        #expect(machine.timerFired(now: Self.start + .seconds(60)) == .rearm(Self.start + .seconds(70)))
        machine.responseEnded(now: Self.start + .seconds(61))
        #expect(machine.timerFired(now: Self.start + .seconds(70)) == .rearm(Self.start + .seconds(71)))
        #expect(machine.timerFired(now: Self.start + .seconds(71)) == .close)
    }

    @Test func pipelinedRequestsAreAnsweredBeforeTheConnectionCountsAsIdle() {
        var machine = Machine(timeout: .seconds(1), now: Self.start)
        for _ in 0..<2 {
            machine.partRead(Self.head, now: Self.start)
            machine.partRead(.end(nil), now: Self.start)
        }
        machine.responseEnded(now: Self.start)
        #expect(machine.timerFired(now: Self.start + .seconds(5)) == .rearm(Self.start + .seconds(6)))
        machine.responseEnded(now: Self.start + .seconds(5))
        #expect(machine.timerFired(now: Self.start + .seconds(6)) == .close)
    }

    /// Hummingbird's own idle timer sits behind the handler that answers cache hits in the
    /// pipeline, never sees those requests, and closed a connection busy with them at the
    /// timeout. Ours sees them: a connection asking for hits for three times the timeout
    /// stays open, and closes once it stops.
    @Test func aConnectionBusyWithCacheHitsStaysOpen() async throws {
        // The timeout and the pause between requests scale with the machine's slowness
        // (a fixed 400 ms left a loaded CI 300 ms of slack): 12 requests a quarter of the
        // timeout apart keep the connection busy for three times the timeout.
        let timeout = Duration.seconds(1).scaled
        let pause = Double(timeout.components.seconds) / 4
        let configuration = ImageServerImmediateResponseTests.cached { $0.keepAliveTimeout = timeout }
        try await RunningImageServer.with(origin: ["/a.png": .ok(try ServerImages.quadrantsPNG(width: 40, height: 40))], configuration) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:10"], extension: "png")
            #expect(try await server.request(path).status == 200)
            let port = server.port
            let (statuses, closedAfter) = try await ImageServerImmediateResponseTests.onThread {
                let connection = try RawHTTPConnection(port: port)
                var statuses: [Int?] = []
                for _ in 0..<12 {
                    try connection.send("GET \(path) HTTP/1.1\r\nHost: a\r\n\r\n")
                    statuses.append(try connection.readResponse().status)
                    Thread.sleep(forTimeInterval: pause)
                }
                return (statuses, connection.isClosedByServer())
            }
            #expect(statuses == Array(repeating: 200, count: 12))
            #expect(closedAfter, "closed once the hits stopped")
        }
    }

    /// A client that pipelines hits and never reads fills the socket's send buffer; from
    /// then on (the channel not writable) the pipeline passes requests on instead of
    /// queueing answers, so Hummingbird's back-pressure stops reading the socket.
    @Test func cacheHitsArePassedOnWhileTheSocketTakesNoWrites() async throws {
        try await RunningImageServer.with(origin: ["/a.png": .ok(try ServerImages.quadrantsPNG(width: 40, height: 40))], ImageServerImmediateResponseTests.cached()) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:10"], extension: "png")
            #expect(try await server.request(path).status == 200)
            let channel = EmbeddedChannel(handler: ImmediateResponseHandler(server: server.server))
            let request = HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "a", path: path))
            try channel.writeInbound(request)
            guard case .head(let answer) = try channel.readOutbound(as: HTTPResponsePart.self) else {
                Issue.record("a hit on a writable socket was not answered in the pipeline")
                return
            }
            #expect(answer.status == .ok)
            try channel.writeInbound(HTTPRequestPart.end(nil))
            while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}

            channel.isWritable = false
            try channel.writeInbound(request)
            #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
            #expect(try channel.readInbound(as: HTTPRequestPart.self) == request)
            _ = try channel.finish()
        }
    }
}
