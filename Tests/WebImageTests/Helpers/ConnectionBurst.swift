import Foundation
import NIOCore
import NIOPosix
@testable import WebImage

/// Connections opened all at once to a server on 127.0.0.1, without waiting for any, as a
/// client pool may open them just as the server stops. For the tests that a server
/// stopping under such a burst serves or closes each one and neither hangs nor traps.
struct ConnectionBurst {
    private let connects: [EventLoopFuture<any Channel>]
    private let port: Int

    /// Starts `count` connects to `port`.
    init(_ count: Int, toPort port: Int) {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        self.port = port
        connects = (0..<count).map { _ in bootstrap.connect(host: "127.0.0.1", port: port) }
    }

    /// Returns once each connect was refused, or succeeded and its connection was then
    /// closed by the server, and gives the number of connections the server left open
    /// for `limit` (closed here then). Without the limit a connection the server never
    /// closed hung the whole test pass: `EventLoopFuture.get()` ignores cancellation, so
    /// a test's time limit could record an issue but not end the wait.
    ///
    /// A client channel still open at the limit counts only if the kernel says the server
    /// still holds its side: NIO can miss a reset that arrives as its connect completes.
    /// Seen about once in forty server passes: the channel was still active after 5 s,
    /// while the kernel held no socket of the connection on either side and the port no
    /// longer listened.
    func waitUntilEachEnded(within limit: Duration = Duration.seconds(20).scaled) async -> Int {
        let leftOpen = LockedValue(0)
        for connect in connects {
            guard let channel = try? await connect.get() else { continue }
            let closer = channel.eventLoop.scheduleTask(in: TimeAmount(limit)) { [port] in
                guard channel.isActive else { return }
                // Not held by the server: it closed the connection and the client never heard.
                let heldByServer = channel.localAddress?.port.map { Self.serverHolds(port: port, peerPort: $0) } ?? true
                if heldByServer { leftOpen.withLock { $0 += 1 } }
                channel.close(promise: nil)
            }
            try? await channel.closeFuture.get()
            closer.cancel()
        }
        return leftOpen.withLock { $0 }
    }

    /// Whether a socket on 127.0.0.1:`port` whose peer is `peerPort` is held open, from the
    /// kernel's table (`/proc/net/tcp`): established, in the handshake, or with the peer's
    /// side closed and its own not. After the holder closes it a socket lingers in other
    /// states (FIN_WAIT, TIME_WAIT), which do not count. If the table cannot be read, it
    /// says yes, so the caller counts the connection as left open.
    static func serverHolds(port: Int, peerPort: Int) -> Bool {
        guard let table = Self.contents(ofKernelFile: "/proc/net/tcp") else { return true }
        let held: Set<String> = ["01", "03", "08"]  // ESTABLISHED, SYN_RECV, CLOSE_WAIT
        return table.split(separator: "\n").dropFirst().contains { line in
            let fields = line.split(separator: " ")
            guard fields.count > 3 else { return false }
            return Self.port(of: fields[1]) == port && Self.port(of: fields[2]) == peerPort && held.contains(String(fields[3]))
        }
    }

    /// A `/proc` file read to its end. Not `String(contentsOfFile:)`: such a file claims a
    /// size of 0, and that came back cut after one read (4,050 of 18,450 bytes with 120
    /// sockets open), which lost the line asked for while the pass had many sockets.
    /// `FileHandle.readToEnd()` reads on until the end (159,300 of 159,300 bytes).
    private static func contents(ofKernelFile path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path), let data = try? file.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The port of an address in the kernel's table, `0100007F:1F90` (hexadecimal).
    private static func port(of address: Substring) -> Int? {
        address.split(separator: ":").last.flatMap { Int($0, radix: 16) }
    }
}
