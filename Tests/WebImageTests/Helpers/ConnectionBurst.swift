import NIOCore
import NIOPosix
@testable import WebImage

/// Connections opened all at once to a server on 127.0.0.1, without waiting for any, as a
/// client pool may open them just as the server stops. For the tests that a server
/// stopping under such a burst serves or closes each one and neither hangs nor traps.
struct ConnectionBurst {
    private let connects: [EventLoopFuture<any Channel>]

    /// Starts `count` connects to `port`.
    init(_ count: Int, toPort port: Int) {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        connects = (0..<count).map { _ in bootstrap.connect(host: "127.0.0.1", port: port) }
    }

    /// Returns once each connect was refused, or succeeded and its connection was then
    /// closed by the server, and gives the number of connections the server left open
    /// for `limit` (closed here then). Without the limit a connection the server never
    /// closed hung the whole test pass: `EventLoopFuture.get()` ignores cancellation, so
    /// a test's time limit could record an issue but not end the wait.
    func waitUntilEachEnded(within limit: Duration = Duration.seconds(20).scaled) async -> Int {
        let leftOpen = LockedValue(0)
        for connect in connects {
            guard let channel = try? await connect.get() else { continue }
            let closer = channel.eventLoop.scheduleTask(in: TimeAmount(limit)) {
                guard channel.isActive else { return }
                leftOpen.withLock { $0 += 1 }
                channel.close(promise: nil)
            }
            try? await channel.closeFuture.get()
            closer.cancel()
        }
        return leftOpen.withLock { $0 }
    }
}
