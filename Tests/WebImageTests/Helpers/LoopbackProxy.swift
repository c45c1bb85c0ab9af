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
                    try operations.addHandler(LoopbackProxy.ConnectHandler(recorder: recorder))
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
