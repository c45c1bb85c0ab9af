import NIOCore
import NIOHTTP1
import NIOPosix

/// The channel handlers of ``LoopbackProxy``: reading the `CONNECT` request, then relaying
/// the tunnel's bytes.
extension LoopbackProxy {
    /// Reads one request head from a client and answers it: a tunnel for an authorised
    /// `CONNECT 127.0.0.1:port`, an error status for anything else.
    final class ConnectHandler: ChannelInboundHandler, RemovableChannelHandler {
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
    final class TunnelHandler: ChannelDuplexHandler {
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
}
