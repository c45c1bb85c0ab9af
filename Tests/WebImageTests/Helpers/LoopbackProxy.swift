import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import WebImage

/// A small HTTP proxy on 127.0.0.1 and an ephemeral port, for the downloader's proxy
/// tests: it answers `CONNECT 127.0.0.1:port` by opening a tunnel to that port and relaying
/// bytes both ways, and records what it did (the tunnels opened, the requests it refused).
///
/// With credentials it requires `Proxy-Authorization: Basic …` for them and answers `407`
/// otherwise. It tunnels to 127.0.0.1 only (any other target gets `403`), so nothing it
/// relays can leave the machine; any method other than `CONNECT` gets `405` (AsyncHTTPClient
/// tunnels `http:` requests too, so absolute-form requests never reach it). Always use it
/// through ``with(credentials:body:)``, which closes every connection however the body ends.
///
/// ```swift
/// try await LoopbackProxy.with { proxy in
///     config.proxy = Downloader.ProxySettings(proxy: proxy.proxy())
///     #expect(proxy.tunnels == ["127.0.0.1:\(server.port)"])
/// }
/// ```
final class LoopbackProxy: Sendable {
    /// The user name and password the proxy requires.
    struct Credentials: Sendable {
        var username: String
        var password: String

        var headerValue: String { "Basic " + Data("\(username):\(password)".utf8).base64EncodedString() }
    }

    /// What the proxy saw, shared with its channel handlers.
    final class Recorder: Sendable {
        struct State {
            var tunnels: [String] = []
            var refused: [String?] = []
            var channels: [ObjectIdentifier: any Channel] = [:]
            var stopping = false
        }

        let credentials: Credentials?
        let state = LockedValue(State())

        init(credentials: Credentials?) {
            self.credentials = credentials
        }

        /// Tracks a connection (client or upstream) until it closes; `false` once stopping.
        func track(_ channel: any Channel) -> Bool {
            let id = ObjectIdentifier(channel)
            let kept = state.withLock { state in
                if !state.stopping { state.channels[id] = channel }
                return !state.stopping
            }
            channel.closeFuture.whenComplete { _ in
                self.state.withLock { _ = $0.channels.removeValue(forKey: id) }
            }
            return kept
        }
    }

    /// The port the proxy listens on.
    let port: Int
    private let recorder: Recorder
    private let channel: any Channel

    private init(port: Int, recorder: Recorder, channel: any Channel) {
        self.port = port
        self.recorder = recorder
        self.channel = channel
    }

    /// `http://127.0.0.1:port`, the form `http_proxy` and `--proxy` take.
    var url: String { "http://127.0.0.1:\(port)" }

    /// The proxy as the downloader's setting, with these credentials (none by default).
    func proxy(username: String? = nil, password: String? = nil) -> Downloader.Proxy {
        Downloader.Proxy(host: "127.0.0.1", port: port, username: username, password: password)
    }

    /// The `host:port` of every tunnel opened, in order.
    var tunnels: [String] { recorder.state.withLock { $0.tunnels } }

    /// The `Proxy-Authorization` of every request refused with 407 (`nil`: none sent).
    var refusedAuthorizations: [String?] { recorder.state.withLock { $0.refused } }

    /// Starts a proxy, runs `body`, and stops the proxy afterwards.
    static func with<T: Sendable>(credentials: Credentials? = nil, body: (LoopbackProxy) async throws -> T) async throws -> T {
        let recorder = Recorder(credentials: credentials)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                guard recorder.track(child) else { return child.close() }
                return child.eventLoop.makeCompletedFuture {
                    let operations = child.pipeline.syncOperations
                    try operations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)), name: "decoder")
                    try operations.addHandler(HTTPResponseEncoder(), name: "encoder")
                    try operations.addHandler(ConnectHandler(recorder: recorder))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let proxy = LoopbackProxy(port: channel.localAddress?.port ?? 0, recorder: recorder, channel: channel)
        do {
            let value = try await body(proxy)
            await proxy.shutdown()
            return value
        } catch {
            await proxy.shutdown()
            throw error
        }
    }

    private func shutdown() async {
        let open = recorder.state.withLock { state in
            state.stopping = true
            return Array(state.channels.values)
        }
        try? await channel.close()
        for connection in open { try? await connection.close() }
    }
}

/// Reads one request head from a client and answers it: a tunnel for an authorised
/// `CONNECT 127.0.0.1:port`, an error status for anything else.
private final class ConnectHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let recorder: LoopbackProxy.Recorder
    private var head: HTTPRequestHead?

    init(recorder: LoopbackProxy.Recorder) {
        self.recorder = recorder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end: if let head { answer(head, context: context) }
        }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard head.method == .CONNECT else { return refuse(.methodNotAllowed, context: context) }
        let authorization = head.headers.first(name: "Proxy-Authorization")
        if let credentials = recorder.credentials, authorization != credentials.headerValue {
            recorder.state.withLock { $0.refused.append(authorization) }
            return refuse(.proxyAuthenticationRequired, headers: [("Proxy-Authenticate", "Basic realm=\"loopback\"")], context: context)
        }
        let target = head.uri.split(separator: ":")
        guard target.count == 2, target[0] == "127.0.0.1", let port = Int(target[1]) else {
            return refuse(.forbidden, context: context)
        }
        let recorder = self.recorder
        ClientBootstrap(group: context.eventLoop)
            .channelInitializer { upstream in
                recorder.track(upstream) ? upstream.eventLoop.makeSucceededVoidFuture() : upstream.close()
            }
            .connect(host: "127.0.0.1", port: port)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let upstream):
                    recorder.state.withLock { $0.tunnels.append(head.uri) }
                    self.openTunnel(to: upstream, context: context)
                case .failure:
                    self.refuse(.badGateway, context: context)
                }
            }
    }

    /// Says 200, then takes the HTTP handlers out and joins the two connections.
    private func openTunnel(to upstream: any Channel, context: ChannelHandlerContext) {
        let head = HTTPResponseHead(version: .http1_1, status: .ok)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        do {
            // Both connections run on this event loop (the upstream was made on it).
            let (client, server) = TunnelHandler.pair()
            let operations = context.pipeline.syncOperations
            try operations.addHandler(client)
            try upstream.pipeline.syncOperations.addHandler(server)
            // This handler first: the decoder forwards any bytes it holds when removed,
            // and they must reach the tunnel, not a handler expecting HTTP parts.
            operations.removeHandler(self, promise: nil)
            operations.removeHandler(name: "encoder", promise: nil)
            operations.removeHandler(name: "decoder", promise: nil)
        } catch {
            upstream.close(promise: nil)
            context.close(promise: nil)
        }
    }

    private func refuse(_ status: HTTPResponseStatus, headers: [(String, String)] = [], context: ChannelHandlerContext) {
        var fields = HTTPHeaders(headers)
        fields.add(name: "Content-Length", value: "0")
        fields.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: fields))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

/// One end of a tunnel: writes what its connection reads to the other end's connection,
/// and closes the other end when its own closes. Both ends live on one event loop.
private final class TunnelHandler: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var partner: TunnelHandler?
    private var context: ChannelHandlerContext?

    static func pair() -> (TunnelHandler, TunnelHandler) {
        let first = TunnelHandler(), second = TunnelHandler()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.context?.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.context?.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.context?.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
