import WebImage
import Foundation
import Testing
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// A real HTTP/1.1 (or HTTPS) server on 127.0.0.1 and an ephemeral port, for tests that
/// need a network peer: it serves fixed replies per path, misbehaves on purpose (slow
/// drip, stalls, resets, lying lengths, redirects, auth), and records what it saw
/// (requests per path, their headers and order, the most requests open at once).
///
/// Never reaches beyond the loopback interface. Always use it through ``with(_:tls:body:)``,
/// which shuts it down (closing every connection, even stalled ones) however the body
/// ends. Thread-safe: routes may change while it runs.
///
/// ```swift
/// try await LoopbackServer.with(["/a.png": .ok(pngData)]) { server in
///     let result = try await downloader.load(server.url("/a.png"), options: .init(), progress: nil)
///     #expect(server.requestCount("/a.png") == 1)
/// }
/// ```
final class LoopbackServer: Sendable {
    /// How the server answers one path.
    indirect enum Reply: Sendable {
        /// 200 with the body, a Content-Length and the content type (none when `nil`).
        case ok(Data, contentType: String? = "application/octet-stream", headers: [(String, String)] = [])
        /// Any status with an optional body.
        case status(Int, body: Data = Data(), headers: [(String, String)] = [])
        /// 200 with a correct Content-Length, the body sent `chunkSize` bytes at a time
        /// with `interval` between chunks.
        case drip(Data, chunkSize: Int, interval: Duration, contentType: String = "application/octet-stream")
        /// 200 without Content-Length (chunked transfer encoding), the body in `chunkSize` pieces.
        case chunked(Data, chunkSize: Int)
        /// 200 and a head announcing `contentLength` bytes, then silence until shutdown.
        case stallAfterHeaders(contentLength: Int)
        /// Reads the request, then says nothing until shutdown.
        case stallBeforeHeaders
        /// 200 announcing the whole body, sends `bytes` of it, then resets the connection (RST).
        case resetMidBody(Data, after: Int)
        /// 200 announcing `claimedLength` bytes, sends `body`, then closes the connection.
        case wrongContentLength(Data, claimedLength: Int)
        /// A redirect (302 unless given) to `location`, which may be relative.
        case redirect(to: String, status: Int = 302)
        /// 401 with a Basic challenge unless the request carries these credentials.
        case basicAuth(user: String, password: String, then: Reply)
        /// Waits, then answers with `then` (to hold a request open).
        case delayed(Duration, then: Reply)
        /// 200 announcing the whole body; sends `firstPart` bytes, then one byte per
        /// `interval` until `gate` opens, then the rest. Lets a test wait for the client to
        /// react mid-body without betting on timing. The hold ends by itself only after
        /// ``gatedHoldLimit`` (or when one byte of the body is left), so a test whose gate
        /// is never opened still ends.
        ///
        /// The body must hold more than `firstPart` bytes plus one per `interval` of the
        /// hold: a short one runs out and ends the reply before the gate opens.
        case gated(Data, firstPart: Int, gate: ReplyGate, interval: Duration, contentType: String)
    }

    /// One request as the server received it.
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: [(name: String, value: String)]

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    private struct State {
        var routes: [String: Reply]
        var stopping = false
        var connections: [ObjectIdentifier: any Channel] = [:]
        var acceptedConnections = 0
        var requests: [Request] = []
        var openRequests = 0
        var maxOpenRequests = 0
    }

    /// The longest a ``Reply/gated(_:firstPart:gate:interval:contentType:)`` reply holds
    /// its body back without its gate opening: 40 s, times ``TestTime/scale``.
    ///
    /// Only a safety net: every test opens its gate, or the behaviour it checks does, and
    /// the hold ends then. So it is longer than any wait of a test before it opens the gate
    /// (the tests' polls give up after 30 s) and shorter than the suites' one-minute time
    /// limit. It was 500 bytes, 10 s at a byte every 20 ms: on a starved machine a partial
    /// decode waiting for BlockingIO's queue, or a test waiting for the cooperative pool,
    /// took longer, the body ended unheld, and the test failed.
    static var gatedHoldLimit: Duration { Duration.seconds(40).scaled }

    /// The port the server listens on.
    let port: Int
    /// Whether the server speaks TLS (with the test-only certificate in Fixtures/tls, or
    /// the configuration given to ``with(_:tls:serverTLS:body:)``).
    let usesTLS: Bool
    private let state: LockedValue<State>
    private let handshakes: HandshakeLog
    private let connections: ConnectionTasks
    private let channel: any Channel

    private init(port: Int, usesTLS: Bool, routes: [String: Reply], channel: any Channel, handshakes: HandshakeLog, connections: ConnectionTasks) {
        self.port = port
        self.usesTLS = usesTLS
        self.channel = channel
        self.handshakes = handshakes
        self.connections = connections
        state = LockedValue(State(routes: routes))
    }

    /// Starts a server with `routes`, runs `body`, and shuts the server down afterwards.
    /// `serverTLS`, when given, is the server's TLS configuration (its certificate, whether
    /// it asks for a client certificate, the ALPN protocols it offers) in place of the
    /// self-signed fixture that `tls` uses.
    static func with<T: Sendable>(
        _ routes: [String: Reply],
        tls: Bool = false,
        serverTLS: TLSConfiguration? = nil,
        body: (LoopbackServer) async throws -> T
    ) async throws -> T {
        let server = try await start(routes: routes, tls: tls, serverTLS: serverTLS)
        do {
            let value = try await body(server)
            await server.shutdown()
            return value
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// `http(s)://127.0.0.1:port` + `path`.
    func url(_ path: String) -> URL {
        // Every path the tests use is a literal that forms a valid URL.
        URL(string: "\(usesTLS ? "https" : "http")://127.0.0.1:\(port)\(path)")!
    }

    /// Replaces or adds the reply for `path`.
    func setRoute(_ path: String, _ reply: Reply) {
        state.withLock { $0.routes[path] = reply }
    }

    /// Waits until at least `count` requests arrived, for tests that must act while a
    /// request is known to be open. After `limit` (times ``TestTime/scale``) it records a
    /// failure where it was called: a test that went on regardless acted before the request
    /// was there, and failed later for a reason that was not the code's. It returns as soon
    /// as they arrive, so the limit costs nothing when they do: two unscaled seconds were
    /// not always enough under AddressSanitizer on a loaded machine, and ten not in the
    /// parallel pass on a starved one. (A manager's load asks its disk cache first, on
    /// BlockingIO's queue, which other tests' decodes can hold for longer still: its tests
    /// give a longer limit.)
    func waitForRequests(_ count: Int, within limit: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + limit.scaled
        while state.withLock({ $0.requests.count }) < count {
            guard ContinuousClock.now < deadline else {
                Issue.record("only \(requests.count) of \(count) requests arrived", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Every request received so far, in arrival order.
    var requests: [Request] { state.withLock { $0.requests } }

    /// How many requests for `path` arrived.
    func requestCount(_ path: String) -> Int {
        state.withLock { $0.requests.filter { $0.path == path }.count }
    }

    /// How many client connections were accepted so far (open or closed since).
    var acceptedConnectionCount: Int { state.withLock { $0.acceptedConnections } }

    /// How many client connections are open now (accepted and not yet closed by either side).
    var openConnectionCount: Int { state.withLock { $0.connections.count } }

    /// Waits until at most `count` connections are open (or `limit`, times
    /// ``TestTime/scale``, passed: it returns as soon as they close, and a loaded CI machine
    /// can be slow); returns whether that happened.
    func waitForOpenConnections(atMost count: Int, within limit: Duration = .seconds(5)) async throws -> Bool {
        let deadline = ContinuousClock.now + limit.scaled
        while openConnectionCount > count {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// The most requests that were open (received, not yet fully answered) at once.
    var maxOpenRequests: Int { state.withLock { $0.maxOpenRequests } }

    /// The application protocol (ALPN) each completed TLS handshake agreed on, in order
    /// (`nil`: the client offered none the server has).
    var negotiatedProtocols: [String?] { handshakes.protocols.withLock { $0 } }

    private static func start(routes: [String: Reply], tls: Bool, serverTLS: TLSConfiguration?) async throws -> LoopbackServer {
        let sslContext: NIOSSLContext?
        if let serverTLS {
            sslContext = try NIOSSLContext(configuration: serverTLS)
        } else {
            sslContext = tls ? try makeSSLContext() : nil
        }
        let handshakes = HandshakeLog()
        let connections = ConnectionTasks()
        // Each accepted connection is handed to a task of its own right in the child
        // initializer, not through the stream of NIO's async `bind`: a connection accepted
        // as that stream ends (the listening socket closing) was dropped unserved, and NIO
        // traps on a dropped NIOAsyncChannel ("Deinited NIOAsyncWriter without calling
        // finish()", apple/swift-nio#2637); it crashed a whole test run once.
        let serverChannel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                        try channel.pipeline.syncOperations.addHandler(HandshakeRecorder { protocolName in
                            handshakes.protocols.withLock { $0.append(protocolName) }
                        })
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    connections.serve(try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = serverChannel.localAddress?.port else {
            try await serverChannel.close()
            throw ServerError.noPort
        }
        let server = LoopbackServer(
            port: port, usesTLS: sslContext != nil, routes: routes, channel: serverChannel, handshakes: handshakes, connections: connections
        )
        connections.attach(server)
        return server
    }

    /// Closes the listening socket and every connection (stalled and delayed replies
    /// stop), and waits until all of them are gone.
    ///
    /// Every accepted connection is served and closed by its own task (see
    /// ``ConnectionTasks``), even one that arrives while the server stops.
    func shutdown() async {
        let open = state.withLock { state in
            state.stopping = true
            return Array(state.connections.values)
        }
        try? await channel.close()
        for connection in open { try? await connection.close() }
        await connections.waitForAll()
    }

    /// Sleeps for `duration` in short slices, throwing as soon as the server stops or the
    /// client closes `channel` (so a stalled reply notices a cancelled request).
    ///
    /// Slices of 50 ms, not 10: each is a wake-up of the one thread every server shares
    /// (``SerialTaskExecutor``), for every stalled, delayed or dripping reply of every
    /// test at once, and a starved machine delays each wake-up: a drip's gaps of 250 ms
    /// grew past a 4-s idle limit in the parallel pass.
    func pause(for duration: Duration, while channel: any Channel) async throws {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            guard !state.withLock({ $0.stopping }) else { throw ServerError.stopping }
            guard channel.isActive else { throw ServerError.closedByClient }
            try await Task.sleep(for: min(.milliseconds(50), end - ContinuousClock.now))
        }
    }

    private static func makeSSLContext() throws -> NIOSSLContext {
        let folder = Corpus.fixtures.appendingPathComponent("tls")
        let certificate = try NIOSSLCertificate.fromPEMFile(folder.appendingPathComponent("cert.pem").path)
        let key = try NIOSSLPrivateKey(file: folder.appendingPathComponent("key.pem").path, format: .pem)
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificate.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
        return try NIOSSLContext(configuration: configuration)
    }

    private enum ServerError: Error { case noPort, stopping, closedByClient }

    fileprivate func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        let channel = connection.channel
        let id = ObjectIdentifier(channel)
        let accepted = state.withLock { state in
            state.acceptedConnections += 1
            if !state.stopping { state.connections[id] = channel }
            return !state.stopping
        }
        defer { state.withLock { _ = $0.connections.removeValue(forKey: id) } }
        try? await connection.executeThenClose { inbound, outbound in
            guard accepted else { return }
            var head: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let requestHead): head = requestHead
                case .body: continue
                case .end:
                    guard let requestHead = head else { continue }
                    let request = record(requestHead)
                    defer { state.withLock { $0.openRequests -= 1 } }
                    let reply = state.withLock { $0.routes[request.path] } ?? .status(404)
                    try await answer(reply, to: request, outbound: outbound, channel: channel)
                }
            }
        }
    }

    private func record(_ head: HTTPRequestHead) -> Request {
        let path = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        let request = Request(method: head.method.rawValue, path: path, headers: head.headers.map { ($0.name, $0.value) })
        state.withLock { state in
            state.requests.append(request)
            state.openRequests += 1
            state.maxOpenRequests = max(state.maxOpenRequests, state.openRequests)
        }
        return request
    }
}

/// The tasks serving a server's connections, one per connection, started as NIO accepts
/// it: the task owns the connection from the first moment, so none is ever dropped without
/// being closed. Until the server object exists (the port is known only after binding) a
/// connection is closed unserved; nobody can know the port before then but a stray client.
private final class ConnectionTasks: Sendable {
    private struct State {
        var server: LoopbackServer?
        var tasks: [Int: Task<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = LockedValue(State())

    func attach(_ server: LoopbackServer) {
        state.withLock { $0.server = server }
    }

    /// Starts serving `connection` (or, before ``attach(_:)``, closing it).
    func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) {
        state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            let server = state.server
            // Off the cooperative pool, so CPU-heavy tests running meanwhile cannot starve it.
            state.tasks[id] = Task(executorPreference: SerialTaskExecutor.shared) {
                if let server {
                    await server.serve(connection)
                } else {
                    try? await connection.executeThenClose { _, _ in }
                }
                self.state.withLock { _ = $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// Waits until every connection accepted so far has been served and closed.
    func waitForAll() async {
        while let task = state.withLock({ $0.tasks.values.first }) {
            await task.value
        }
    }
}

/// The application protocols of a server's completed TLS handshakes, shared with its
/// connections' handlers.
private final class HandshakeLog: Sendable {
    let protocols = LockedValue<[String?]>([])
}

/// Hands on the application protocol of each completed TLS handshake.
private final class HandshakeRecorder: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    private let record: @Sendable (String?) -> Void

    init(record: @escaping @Sendable (String?) -> Void) {
        self.record = record
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiatedProtocol) = event { record(negotiatedProtocol) }
        context.fireUserInboundEventTriggered(event)
    }
}
