import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers result-cache hits in the connection's pipeline, on its event loop, before the
/// request reaches Hummingbird; everything else passes through unchanged.
///
/// A warm image service answers mostly hits, and a hit is a lookup and a write: for it,
/// Hummingbird's path from the pipeline to an async handler and back (an async sequence
/// in, a task for the handler, an async writer out) costs several times what the answer
/// does. Measured on a 35 KB result over loopback, that path was most of the ~150 µs of
/// CPU a hit took (Benchmarks/README.md, "Image service"). This handler answers the hit
/// where the request was decoded, with the same headers and counts as the full path
/// (``ImageServer/cachedResponse(target:method:headers:)``), so a client cannot tell which
/// path answered.
///
/// Only a request that would certainly be a hit is answered here: the secret and the
/// signature checked, the result in memory, the method `GET` or `HEAD`, no request of the
/// connection still with Hummingbird (so responses keep their order). A request that
/// fails any check passes through, and the full path gives its status.
final class CacheHitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        /// No request of this connection is with Hummingbird.
        case idle
        /// This many requests were passed on and not yet answered.
        case passing(Int)
        /// A request was answered here; its remaining parts are dropped until its end.
        case dropping
    }

    private let server: ImageServer
    private var state = State.idle

    init(server: ImageServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (state, part) {
        case (.dropping, .end):
            state = .idle
        case (.dropping, _):
            break
        case (.idle, .head(let request)):
            // A client that asks to close gets Hummingbird's handling of it.
            let closes = request.headerFields[.connection]?.lowercased().contains("close") == true
            if !closes, let answer = server.cachedResponse(target: request.path ?? "", method: request.method, headers: request.headerFields) {
                state = .dropping
                var head = answer.head
                head.headerFields[.date] = HTTPDate.now()
                head.headerFields[.server] = "webimage"
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                state = .passing(1)
                context.fireChannelRead(data)
            }
        case (.passing(let count), .head):
            state = .passing(count + 1)
            context.fireChannelRead(data)
        default:
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), case .passing(let count) = state {
            state = count > 1 ? .passing(count - 1) : .idle
        }
        context.write(data, promise: promise)
    }
}
