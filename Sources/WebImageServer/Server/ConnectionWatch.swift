import WebImage
import NIOCore

/// Whether a request's client is still there: closed once the connection's input ends (the
/// client closed its side) or the connection goes away.
///
/// Hummingbird does not cancel a handler when its client disconnects, so a job waiting in
/// the queue would still be fetched, decoded and encoded for no one. Under overload such
/// jobs are much of what the queue holds (a client that times out goes away, as wrk does
/// when it stops); cancelling them frees the workers for clients that still wait, and lets
/// a graceful stop finish sooner. This is nginx's rule for a proxied request too: a client
/// that closes its connection has abandoned the request (nginx logs it as 499).
///
/// ``Handler`` closes the watch from the connection's pipeline; ``ImageServer`` reads it
/// through ``ImageRequestContext``. Thread-safe.
public final class ConnectionWatch: Sendable {
    private struct State {
        var observers: [Int: @Sendable () -> Void] = [:]
        var nextID = 0
        var isClosed = false
    }

    private let state = LockedValue(State())

    /// A watch on an open connection.
    public init() {}

    /// Whether the client has gone.
    public var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Calls `action` once when the client goes: at once (before returning) if it already
    /// has. Returns a token for ``removeObserver(_:)``.
    func onClose(_ action: @escaping @Sendable () -> Void) -> Int? {
        let id: Int? = state.withLock { state in
            guard !state.isClosed else { return nil }
            defer { state.nextID += 1 }
            state.observers[state.nextID] = action
            return state.nextID
        }
        if id == nil { action() }
        return id
    }

    /// Forgets the action registered under `id` (a `nil` token is one that already ran).
    func removeObserver(_ id: Int?) {
        guard let id else { return }
        state.withLock { _ = $0.observers.removeValue(forKey: id) }
    }

    /// Marks the client gone and runs every registered action, outside the lock (an action
    /// may take locks of its own).
    func close() {
        let observers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.isClosed else { return [] }
            state.isClosed = true
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for observer in observers { observer() }
    }
}

extension ConnectionWatch {
    /// The channel handler that closes a connection's ``ConnectionWatch``: one per
    /// connection, placed after HTTP decoding (Hummingbird's `additionalChannelHandlers`).
    /// It passes everything through unchanged.
    public final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        public typealias InboundIn = NIOAny

        /// The watch this handler closes.
        public let watch = ConnectionWatch()

        /// A handler with an open watch.
        public init() {}

        /// The client closed its side: Hummingbird's connections allow half-closure, so this
        /// event, not `channelInactive`, is what a departing client causes first.
        public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? ChannelEvent, event == .inputClosed { watch.close() }
            context.fireUserInboundEventTriggered(event)
        }

        public func channelInactive(context: ChannelHandlerContext) {
            watch.close()
            context.fireChannelInactive()
        }
    }
}
