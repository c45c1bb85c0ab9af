import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing
@testable import WebImage
@testable import WebImageServer

/// An image server stopping while clients connect: the process must survive it.
@Suite struct ImageServerStoppingTests {
    /// Connections opened in a burst just as the server stops are each served or closed,
    /// and the process lives on. Hummingbird hands accepted connections to its serving
    /// task through the stream of NIO's async `bind`; a connection still in that stream
    /// when the task is cancelled is dropped, and NIO traps on it ("Deinited NIOAsyncWriter
    /// without calling finish()", apple/swift-nio#2813, still open). `ImageServer.run`
    /// therefore never lets cancellation reach its services: it turns it into a graceful
    /// shutdown, which reads the stream to its end. This is the test of that choice; a
    /// server cancelled outright kills the whole test process here within a few rounds.
    @Test(.timeLimit(.minutes(2)))
    func connectionsArrivingAsItStopsAreClosedNotDropped() async throws {
        for _ in 0..<20 {
            var burst: ConnectionBurst?
            try await RunningImageServer.with(.testing()) { server in
                burst = ConnectionBurst(64, toPort: server.port)
            }
            // Each connect was refused, or the stopped server has closed its connection.
            let leftOpen = await (try #require(burst)).waitUntilEachEnded()
            #expect(leftOpen == 0, "connections the stopped server never closed")
        }
    }

    /// The check that burst's count rests on: the kernel's table shows a server's side of
    /// a connection while it is held, and stops showing it once the server closes it.
    @Test func theKernelTableShowsAConnectionOnlyWhileTheServerHoldsIt() async throws {
        let accepted = LockedValue<(any Channel)?>(nil)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                accepted.withLock { $0 = channel }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { listener.close(promise: nil) }
        let port = try #require(listener.localAddress?.port)
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
        defer { client.close(promise: nil) }
        let clientPort = try #require(client.localAddress?.port)
        try #require(await waitUntil { accepted.withLock { $0 } != nil })
        #expect(ConnectionBurst.serverHolds(port: port, peerPort: clientPort))
        try await #require(accepted.withLock { $0 }).close()
        #expect(await waitUntil(.seconds(10)) { !ConnectionBurst.serverHolds(port: port, peerPort: clientPort) })
    }

    /// A run ended by its task's cancellation stops like one ended by SIGTERM: it waits for
    /// the worker threads, which an idle server stops at once. The cancellation used to
    /// reach the stop's own deadline, so the threads were never waited for and every stop
    /// logged worker jobs "still running".
    @Test func aCancelledRunWaitsForItsIdleWorkerThreads() async throws {
        let log = LogCapture()
        let server = try ImageServer(configuration: .testing(), logger: Logger(label: "test") { _ in log.handler })
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            defer { continuation.finish() }
            try await server.run { port, _ in continuation.yield(port) }
        }
        var iterator = ports.makeAsyncIterator()
        _ = try #require(await iterator.next())
        task.cancel()
        _ = await task.result
        #expect(!log.all.contains { $0.contains("still running") }, "\(log.all)")
        // The pool was stopped before `run` returned: it takes no more work.
        await #expect(throws: (any Error).self) { try await server.workerThreads.run { 1 } }
    }
}
