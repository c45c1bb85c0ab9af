import NIOCore
import NIOPosix
import Synchronization

/// A TCP listener on a loopback address that counts the connections it accepts and closes
/// each at once: the witness that a client did, or did not, connect somewhere.
///
/// ```swift
/// try await ConnectionCountingListener.with(host: "127.0.0.2") { listener in
///     // ... make something try to reach 127.0.0.2:listener.port ...
///     #expect(listener.connections == 0)
/// }
/// ```
final class ConnectionCountingListener: Sendable {
    /// The port it listens on.
    let port: Int
    private let counter: Counter

    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    private init(port: Int, counter: Counter) {
        self.port = port
        self.counter = counter
    }

    /// Connections accepted so far.
    var connections: Int { counter.value.load(ordering: .relaxed) }

    /// Listens on `host` (a loopback address) and a free port for the length of `body`.
    static func with<T: Sendable>(host: String, body: (ConnectionCountingListener) async throws -> T) async throws -> T {
        let counter = Counter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                counter.value.add(1, ordering: .relaxed)
                return child.close()
            }
            .bind(host: host, port: 0)
            .get()
        let listener = ConnectionCountingListener(port: channel.localAddress?.port ?? 0, counter: counter)
        return try await channel.closingAfter { try await body(listener) }
    }
}
