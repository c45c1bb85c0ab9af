import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection on which, for ``ImageServer/Configuration/keepAliveTimeout``, no
/// whole request part has arrived and no response has ended, unless a request is being
/// answered: an idle keep-alive connection, or a client that sends its request head a byte
/// at a time (bytes alone are not a part). Also closes one whose response has not reached
/// the socket whole within ``ImageServer/Configuration/writeResponseTimeout`` of its head
/// being written: a client that asks and never reads (imgproxy's write deadline). Without
/// them, ``ImageServer/Configuration/maxClients`` such connections would lock every other
/// client out for good. And it holds a full close back until the response being written
/// has reached the socket, so that a shutdown never cuts one short.
///
/// Hummingbird has this timer too (`HTTP1Channel.Configuration.idleTimeout`), but there it
/// sits behind ``ImmediateResponseHandler`` and never sees the requests answered in the
/// pipeline: a connection busy with cache hits looked idle to it and was closed under its
/// client. This handler comes first, so every request part reaches it before anything
/// answers it, and every response passes it on the way out.
///
/// With keep-alive off (``ImageServer/Configuration/keepAliveTimeout`` 0, as imgproxy's),
/// it also marks each response `Connection: close` and closes the connection once that
/// response is out; a request pipelined behind the first is not read.
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
        /// How long one response may take to reach the socket from its head's write.
        let writeTimeout: TimeAmount
        private var lastActivity: NIODeadline
        /// Between a request's head and its end.
        private var isReadingRequest = false
        /// Requests whose head arrived and whose response has not ended.
        private var unanswered = 0
        /// Responses whose head was written and whose end has not reached the socket.
        private var responsesWriting = 0
        /// When the response now being written began: its head's write, or, for one
        /// pipelined behind another, the moment the one before it reached the socket.
        private var writingSince: NIODeadline?

        init(timeout: TimeAmount, writeTimeout: TimeAmount, now: NIODeadline) {
            self.timeout = timeout
            self.writeTimeout = writeTimeout
            lastActivity = now
        }

        /// When the first check is due.
        var firstDeadline: NIODeadline { lastActivity + timeout }

        /// Whether a response's head was written and its end has not reached the socket.
        var isWritingResponse: Bool { responsesWriting > 0 }

        /// A request part arrived. A head or an end puts the deadline back; a body part
        /// does not, so a request must arrive whole within the timeout of its head (as Go's
        /// `ReadTimeout` bounds imgproxy's whole read). An image server takes no body: one
        /// sent a byte every few seconds used to hold its connection for good, past
        /// ``ImageServer/Configuration/maxClients``.
        mutating func partRead(_ part: HTTPRequestPart, now: NIODeadline) {
            switch part {
            case .head:
                lastActivity = now
                isReadingRequest = true
                unanswered += 1
            case .body:
                break
            case .end:
                lastActivity = now
                isReadingRequest = false
            }
        }

        /// A response's head was written (an informational one does not count). Returns
        /// the write deadline when this starts one, for the timer to fire by then.
        mutating func responseStarted(now: NIODeadline) -> NIODeadline? {
            responsesWriting += 1
            guard writingSince == nil else { return nil }
            writingSince = now
            return now + writeTimeout
        }

        /// A response's end reached the socket (or failed to: the connection is closing).
        mutating func responseEnded(now: NIODeadline) {
            lastActivity = now
            unanswered = max(0, unanswered - 1)
            responsesWriting = max(0, responsesWriting - 1)
            writingSince = responsesWriting > 0 ? now : nil
        }

        func timerFired(now: NIODeadline) -> Action {
            let writeDeadline = writingSince.map { $0 + writeTimeout }
            // A response the client does not take: its bytes sit in the socket's buffer.
            if let writeDeadline, now >= writeDeadline { return .close }
            let next: NIODeadline
            if !isReadingRequest, unanswered > 0 {
                // A request read whole and being answered is the server's time, not the
                // client's: the request's own deadline bounds it.
                next = now + timeout
            } else {
                let deadline = lastActivity + timeout
                if now >= deadline { return .close }
                next = deadline
            }
            return .rearm(writeDeadline.map { min($0, next) } ?? next)
        }
    }

    private var state: StateMachine
    private var timer: Scheduled<Void>?
    /// When ``timer`` fires.
    private var timerDeadline: NIODeadline?
    /// A full close asked for while a response was still on its way to the socket, held
    /// until it is out (see ``close(context:mode:promise:)``).
    private var isCloseHeld = false
    /// The promise of the held close (and, cascaded from it, of any asked for after it).
    private var heldClosePromise: EventLoopPromise<Void>?

    /// Whether a connection answers more than one request.
    private let keepsAlive: Bool
    /// The first request has arrived whole (noted only with keep-alive off: every part
    /// after it on the connection is dropped).
    private var hasReadRequest = false

    init(timeout: TimeAmount, writeTimeout: TimeAmount, keepsAlive: Bool = true) {
        state = StateMachine(timeout: timeout, writeTimeout: writeTimeout, now: .now())
        self.keepsAlive = keepsAlive
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
        // Closed some other way (the peer left): a held close has nothing left to wait for.
        if isCloseHeld { releaseHeldClose(context) }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The connection is closing: a request read now would not be answered whole.
        guard !isCloseHeld else { return }
        let part = unwrapInboundIn(data)
        if !keepsAlive {
            // A second request on a connection that answers one: dropped whole, head, body
            // and end, as the close follows the first response.
            guard !hasReadRequest else { return }
            if case .end = part { hasReadRequest = true }
        }
        state.partRead(part, now: .now())
        context.fireChannelRead(data)
    }

    /// A full close drops whatever NIO has not handed to the kernel yet. Graceful shutdown
    /// (Hummingbird's quiesce, which counts no request on a connection whose hits the
    /// pipeline answered) and Hummingbird's close after a last response both ask for one
    /// while a large response may still be on its way to a slow client, which then got
    /// fewer bytes than its `Content-Length`. The close waits until the response's end has
    /// reached the socket; the write deadline bounds the wait (the timer closes then).
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, state.isWritingResponse, context.channel.isActive else {
            context.close(mode: mode, promise: promise)
            return
        }
        isCloseHeld = true
        guard let promise else { return }
        if let held = heldClosePromise {
            held.futureResult.cascade(to: promise)
        } else {
            heldClosePromise = promise
        }
    }

    /// A response has ended when its end has been written to the socket, not when it was
    /// handed to the pipeline: a large answer to a slow client is still being sent then,
    /// and closing at the timeout would cut it short.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            // A 100 Continue comes before the response it announces.
            guard head.status.kind != .informational else {
                context.write(data, promise: promise)
                return
            }
            if let deadline = state.responseStarted(now: .now()), let timerDeadline, deadline < timerDeadline {
                timer?.cancel()
                schedule(context, at: deadline)
            }
            if !keepsAlive {
                head.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            }
            context.write(data, promise: promise)
            return
        case .body:
            context.write(data, promise: promise)
            return
        case .end:
            break
        }
        let written = promise ?? context.eventLoop.makePromise(of: Void.self)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in
            let (handler, context) = loopBound.value
            handler.state.responseEnded(now: .now())
            if handler.isCloseHeld, !handler.state.isWritingResponse {
                handler.releaseHeldClose(context)
            } else if !handler.keepsAlive, context.channel.isActive {
                context.close(mode: .all, promise: nil)
            }
        }
        context.write(data, promise: written)
    }

    /// Closes the connection, completing a held close's promise with it.
    private func releaseHeldClose(_ context: ChannelHandlerContext) {
        isCloseHeld = false
        let promise = heldClosePromise
        heldClosePromise = nil
        context.close(mode: .all, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        state = StateMachine(timeout: state.timeout, writeTimeout: state.writeTimeout, now: .now())
        schedule(context, at: state.firstDeadline)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timerDeadline = deadline
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            handler.timerDeadline = nil
            switch handler.state.timerFired(now: .now()) {
            case .close:
                handler.releaseHeldClose(context)
            case .rearm(let next):
                handler.schedule(context, at: next)
            }
        }
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }
}
