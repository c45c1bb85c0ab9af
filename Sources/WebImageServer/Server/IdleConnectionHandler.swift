import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection on which, for ``ImageServer/Configuration/keepAliveTimeout``, no
/// whole request part has arrived and no response has ended, unless a request is being
/// answered: an idle keep-alive connection, or a client that sends its request head a byte
/// at a time (bytes alone are not a part). Without it, ``ImageServer/Configuration/maxClients``
/// such connections would lock every other client out for good.
///
/// Hummingbird has this timer too (`HTTP1Channel.Configuration.idleTimeout`), but there it
/// sits behind ``ImmediateResponseHandler`` and never sees the requests answered in the
/// pipeline: a connection busy with cache hits looked idle to it and was closed under its
/// client. This handler comes first, so every request part reaches it before anything
/// answers it, and every response passes it on the way out.
final class IdleConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The timer's decisions, apart from the event loop and the clock.
    struct StateMachine {
        /// What the timer does when it fires.
        enum Action: Equatable {
            /// Nothing arrived or ended for the whole timeout: close.
            case close
            /// Fire again at this time.
            case rearm(NIODeadline)
        }

        let timeout: TimeAmount
        private var lastActivity: NIODeadline
        /// Between a request's head and its end.
        private var isReadingRequest = false
        /// Requests whose head arrived and whose response has not ended.
        private var unanswered = 0

        init(timeout: TimeAmount, now: NIODeadline) {
            self.timeout = timeout
            lastActivity = now
        }

        /// When the first check is due.
        var firstDeadline: NIODeadline { lastActivity + timeout }

        mutating func partRead(_ part: HTTPRequestPart, now: NIODeadline) {
            lastActivity = now
            switch part {
            case .head:
                isReadingRequest = true
                unanswered += 1
            case .body:
                break
            case .end:
                isReadingRequest = false
            }
        }

        mutating func responseEnded(now: NIODeadline) {
            lastActivity = now
            unanswered = max(0, unanswered - 1)
        }

        func timerFired(now: NIODeadline) -> Action {
            // A request read whole and being answered is the server's time, not the
            // client's: the request's own deadline bounds it.
            if !isReadingRequest, unanswered > 0 { return .rearm(now + timeout) }
            let deadline = lastActivity + timeout
            return now >= deadline ? .close : .rearm(deadline)
        }
    }

    private var state: StateMachine
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        state = StateMachine(timeout: timeout, now: .now())
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        state.partRead(unwrapInboundIn(data), now: .now())
        context.fireChannelRead(data)
    }

    /// A response has ended when its end has been written to the socket, not when it was
    /// handed to the pipeline: a large answer to a slow client is still being sent then,
    /// and closing at the timeout would cut it short.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        let written = promise ?? context.eventLoop.makePromise(of: Void.self)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in handler.value.state.responseEnded(now: .now()) }
        context.write(data, promise: written)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        state = StateMachine(timeout: state.timeout, now: .now())
        schedule(context, at: state.firstDeadline)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            switch handler.state.timerFired(now: .now()) {
            case .close:
                context.close(promise: nil)
            case .rearm(let next):
                handler.schedule(context, at: next)
            }
        }
    }

    private func stop() {
        timer?.cancel()
        timer = nil
    }
}
