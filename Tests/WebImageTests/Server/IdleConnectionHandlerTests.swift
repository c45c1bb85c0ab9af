import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
@testable import WebImage
@testable import WebImageServer

/// The server's idle-connection timer (`WEBIMAGE_KEEP_ALIVE_TIMEOUT`) and write deadline
/// (`WEBIMAGE_WRITE_RESPONSE_TIMEOUT`): their decisions alone, then through a real server,
/// where the requests answered in the pipeline must count as activity and a client that
/// never reads must be closed; and the pipeline's cache-hit answers yielding to
/// back-pressure.
@Suite struct IdleConnectionHandlerTests {
    typealias Machine = IdleConnectionHandler.StateMachine
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    static let head = HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "a", path: "/x"))

    @Test func aConnectionWithNothingArrivingIsClosedAtTheTimeout() {
        let machine = Machine(timeout: .seconds(10), writeTimeout: .seconds(30), now: Self.start)
        #expect(machine.firstDeadline == Self.start + .seconds(10))
        #expect(machine.timerFired(now: Self.start + .seconds(9)) == .rearm(Self.start + .seconds(10)))
        #expect(machine.timerFired(now: Self.start + .seconds(10)) == .close)
    }

    @Test func eachWholePartOrEndedResponsePutsTheDeadlineBack() {
        var machine = Machine(timeout: .seconds(10), writeTimeout: .seconds(30), now: Self.start)
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

    /// A review's finding: every body part put the deadline back, so a body sent a byte
    /// every nine seconds held its connection for good.
    @Test func aBodyArrivingSlowlyDoesNotHoldTheConnection() {
        var machine = Machine(timeout: .seconds(10), writeTimeout: .seconds(30), now: Self.start)
        machine.partRead(Self.head, now: Self.start)
        for second in [9, 18] {
            machine.partRead(.body(ByteBuffer(string: "a")), now: Self.start + .seconds(Int64(second)))
        }
        #expect(machine.timerFired(now: Self.start + .seconds(9)) == .rearm(Self.start + .seconds(10)))
        #expect(machine.timerFired(now: Self.start + .seconds(19)) == .close)
    }

    @Test func pipelinedRequestsAreAnsweredBeforeTheConnectionCountsAsIdle() {
        var machine = Machine(timeout: .seconds(1), writeTimeout: .seconds(30), now: Self.start)
        for _ in 0..<2 {
            machine.partRead(Self.head, now: Self.start)
            machine.partRead(.end(nil), now: Self.start)
        }
        machine.responseEnded(now: Self.start)
        #expect(machine.timerFired(now: Self.start + .seconds(5)) == .rearm(Self.start + .seconds(6)))
        machine.responseEnded(now: Self.start + .seconds(5))
        #expect(machine.timerFired(now: Self.start + .seconds(6)) == .close)
    }

    @Test func aResponseNotTakenWithinTheWriteTimeoutClosesTheConnection() {
        var machine = Machine(timeout: .seconds(10), writeTimeout: .seconds(3), now: Self.start)
        machine.partRead(Self.head, now: Self.start)
        machine.partRead(.end(nil), now: Self.start)
        // Answering is the server's time until the head is written...
        #expect(machine.timerFired(now: Self.start + .seconds(10)) == .rearm(Self.start + .seconds(20)))
        #expect(machine.responseStarted(now: Self.start + .seconds(11)) == Self.start + .seconds(14))
        // ...then the client has the write timeout to take the whole response.
        #expect(machine.timerFired(now: Self.start + .seconds(12)) == .rearm(Self.start + .seconds(14)))
        #expect(machine.timerFired(now: Self.start + .seconds(14)) == .close)
    }

    @Test func eachPipelinedResponseHasTheWholeWriteTimeout() {
        var machine = Machine(timeout: .seconds(10), writeTimeout: .seconds(3), now: Self.start)
        for _ in 0..<2 {
            machine.partRead(Self.head, now: Self.start)
            machine.partRead(.end(nil), now: Self.start)
        }
        #expect(machine.responseStarted(now: Self.start) == Self.start + .seconds(3))
        // The second head is written behind the first: its time starts when the first is out.
        #expect(machine.responseStarted(now: Self.start + .seconds(1)) == nil)
        machine.responseEnded(now: Self.start + .seconds(2))
        #expect(machine.timerFired(now: Self.start + .seconds(4)) == .rearm(Self.start + .seconds(5)))
        machine.responseEnded(now: Self.start + .milliseconds(4_500))
        // Both out: the keep-alive timeout from the last end, no write deadline.
        #expect(machine.timerFired(now: Self.start + .seconds(5)) == .rearm(Self.start + .milliseconds(14_500)))
        #expect(machine.timerFired(now: Self.start + .milliseconds(14_500)) == .close)
    }

    /// A full close (graceful shutdown's quiesce, or Hummingbird's close after a last
    /// response) waits until the response being written has reached the socket: NIO drops
    /// what it holds unsent at a full close, and a large hit to a slow client came out
    /// shorter than its `Content-Length`. With nothing being written, it closes at once.
    @Test func aCloseWaitsForTheResponseOnItsWayToTheSocket() throws {
        let channel = EmbeddedChannel(handler: IdleConnectionHandler(timeout: .seconds(60), writeTimeout: .seconds(60)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        while try channel.readInbound(as: HTTPRequestPart.self) != nil {}
        // Written, not yet flushed: still in NIO's buffer, as a response to a slow reader is.
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.write(HTTPResponsePart.body(ByteBuffer(string: "pixels")), promise: nil)
        let ended = channel.eventLoop.makePromise(of: Void.self)
        channel.write(HTTPResponsePart.end(nil), promise: ended)
        let closed = channel.close()
        channel.embeddedEventLoop.run()
        #expect(channel.isActive, "closed with the response still unsent")
        // A request arriving meanwhile is not passed on: it would not be answered whole.
        try channel.writeInbound(Self.head)
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
        channel.flush()
        channel.embeddedEventLoop.run()
        try ended.futureResult.wait()
        try closed.wait()
        #expect(!channel.isActive)
        var parts = 0
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil { parts += 1 }
        #expect(parts == 3, "the whole response reached the socket")
    }

    @Test func aCloseWithNothingBeingWrittenIsAtOnce() throws {
        let channel = EmbeddedChannel(handler: IdleConnectionHandler(timeout: .seconds(60), writeTimeout: .seconds(60)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.close().wait()
        #expect(!channel.isActive)
    }

    /// A client that asks for more than the socket's buffers hold and never reads: its
    /// responses' ends never reach the socket. Without a write deadline the connection (and
    /// the answers queued on it) stayed open for good; with one, it is closed once a
    /// response has waited the write timeout, long before every answer was sent.
    @Test func aClientThatNeverReadsIsClosedAtTheWriteTimeout() async throws {
        // Noise does not compress: each answer is about 300 KB, 40 of them 12 MB, beyond the
        // kernel's largest send buffer (4 MB) and the client's receive buffer (shrunk).
        var random = SplitMix64(seed: 7)
        let side = 320
        let noise = try PixelBuffer(width: side, height: side, bytes: (0..<side * side * 4).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        let png = try CodersManager.shared.encode(Image(pixels: noise, hasAlpha: false), as: .png)
        let requests = 40
        let configuration = ImageServerImmediateResponseTests.cached { $0.writeResponseTimeout = Duration.seconds(1).scaled }
        try await RunningImageServer.with(origin: ["/n.png": .ok(png)], configuration) { origin, server in
            let path = ImageURL.plain(origin.url("/n.png"), ["w:\(side)"], extension: "png")
            let first = try await server.request(path)
            #expect(first.status == 200)
            #expect(first.body.count > 250_000, "the answer is large enough to fill the buffers")
            let port = server.port
            let wait = 3 * Double(Duration.seconds(1).scaled.components.seconds)
            let (answered, closed) = try await ImageServerImmediateResponseTests.onThread {
                let connection = try RawHTTPConnection(port: port, receiveBuffer: 4_096)
                try connection.send(String(repeating: "GET \(path) HTTP/1.1\r\nHost: a\r\n\r\n", count: requests))
                // Not reading, for three write timeouts; then everything the server sent.
                Thread.sleep(forTimeInterval: wait)
                var answered = 0
                while answered < requests, (try? connection.readResponse()) != nil { answered += 1 }
                // Asked again, not inferred from the failed read: that read fails the same way
                // at its time-out on a connection the server left open with answers unsent.
                // This one returns at once on an end of file or a reset, and false after its
                // own time-out on a connection still open.
                return (answered, connection.isClosedByServer())
            }
            #expect(answered < requests, "every answer was sent to a client that did not read")
            #expect(closed, "the connection stayed open with its answers unsent")
        }
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
