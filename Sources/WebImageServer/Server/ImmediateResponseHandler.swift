import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers, in the connection's pipeline and on its event loop, the requests that need no
/// waiting, before they reach Hummingbird: result-cache hits in memory, and 429s while the
/// queue is full. Everything else passes through unchanged.
///
/// A warm image service answers mostly hits, and an overloaded one mostly refusals; each is
/// a lookup and a short write. For them, Hummingbird's path from the pipeline to an async
/// handler and back (an async sequence in, a task for the handler, an async writer out)
/// costs several times what the answer does: a 35 KB hit over loopback took ~150 µs of CPU
/// that way and ~60 µs here (Benchmarks/README.md, "Image service"). The answers are made
/// by ``ImageServer/immediateResponse(target:method:headers:)`` with the same checks, in
/// the same order, and the same headers and counts as the full path, so a client cannot
/// tell which path answered.
///
/// Only a request that is certainly answered at once is answered here: `GET` or `HEAD`,
/// not asking to close the connection, no earlier request of the connection still with
/// Hummingbird (so responses keep their order), and a socket that takes writes. Anything
/// else passes through, and a request that fails a check gets its status from the full
/// path. The last condition is the back-pressure: a client that pipelines hits and never
/// reads would otherwise have answers queued in memory without end, since the pipeline
/// keeps reading while it answers; passed on, its requests meet Hummingbird's, which
/// stops reading the socket until the answers drain.
final class ImmediateResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
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
            if !closes, context.channel.isWritable,
               let answer = server.immediateResponse(target: request.path ?? "", method: request.method, headers: request.headerFields) {
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
