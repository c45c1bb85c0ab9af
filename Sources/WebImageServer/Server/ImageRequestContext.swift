import Hummingbird
import NIOCore

/// The request context of ``ImageServer``'s own application: Hummingbird's basic context
/// plus the connection the request came on, so that a job queued for a client that has
/// gone can be cancelled (``ConnectionWatch``).
///
/// An application that mounts ``ImageServer/routes(mountedAt:context:)`` with a context of
/// its own still works; it only loses that cancellation. To keep it, route with this
/// context and add a ``ConnectionWatch/Handler`` per connection:
///
/// ```swift
/// let router = Router(context: ImageRequestContext.self)
/// router.addRoutes(server.routes())
/// let app = Application(
///     router: router,
///     server: .http1(configuration: .init(additionalChannelHandlers: [ConnectionWatch.Handler()]))
/// )
/// ```
public struct ImageRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }

    /// The connection's watch, or `nil` when its pipeline has no ``ConnectionWatch/Handler``.
    func connectionWatch() async -> ConnectionWatch? {
        let channel = channel
        return try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: ConnectionWatch.Handler.self).watch
        }.get()
    }
}
