import NIOCore
import NIOPosix

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
    /// closed (by the server: this side never closes one).
    func waitUntilEachEnded() async {
        for connect in connects {
            if let channel = try? await connect.get() {
                try? await channel.closeFuture.get()
            }
        }
    }
}
