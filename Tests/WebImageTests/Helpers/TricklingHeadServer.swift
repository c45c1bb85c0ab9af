import Foundation
import NIOCore
import NIOPosix
@testable import WebImage

/// A TCP server on 127.0.0.1 that answers every request with a response head that never
/// ends: a status line, then one byte of a header value per `interval`, until the client
/// closes the connection. The bytes keep coming, so a time-out that any arriving byte
/// resets never fires; only a limit on the head itself (or on the time between whole
/// heads and body parts) ends the request.
///
/// ```swift
/// try await TricklingHeadServer.with(interval: .milliseconds(50)) { server in
///     let error = await LoaderTesting.error(loading: server.url, with: downloader)
/// }
/// ```
final class TricklingHeadServer: Sendable {
    /// The URL of the one resource it serves (any path gets the same answer).
    let url: URL

    private init(port: Int) {
        // A literal with a port number always forms a valid URL.
        url = URL(string: "http://127.0.0.1:\(port)/trickle.png")!
    }

    /// Listens on a free loopback port for the length of `body`.
    static func with<T: Sendable>(interval: Duration, body: (TricklingHeadServer) async throws -> T) async throws -> T {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(Trickler(interval: interval.timeAmount))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let server = TricklingHeadServer(port: channel.localAddress?.port ?? 0)
        return try await channel.closingAfter { try await body(server) }
    }

    /// Starts trickling at the first bytes of a request; stops when the channel closes.
    private final class Trickler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let interval: TimeAmount
        private var started = false
        private var timer: RepeatedTask?

        init(interval: TimeAmount) {
            self.interval = interval
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !started else { return }
            started = true
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nX-Slow: ")), promise: nil)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                let context = loopBound.value
                context.writeAndFlush(NIOAny(ByteBuffer(string: "a")), promise: nil)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            timer?.cancel()
            context.fireChannelInactive()
        }
    }
}
