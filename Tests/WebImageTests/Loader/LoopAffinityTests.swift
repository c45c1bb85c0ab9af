import NIOCore
import NIOPosix
import Testing
@testable import WebImage

/// Which event loop a transfer's response is read on: the loop of the transfer that ended
/// last (its connection is idle there), as counted, instead of the next in turn.
@Suite struct LoopAffinityTests {
    private func withGroup(_ body: (MultiThreadedEventLoopGroup, [any EventLoop]) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        do {
            try await body(group, Array(group.makeIterator()))
        } catch {
            try await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    @Test func offTheLoopsATransferGoesWhereOneEnded() async throws {
        try await withGroup { group, loops in
            let affinity = LoopAffinity(limit: 8)
            _ = affinity.loop(in: group)
            affinity.transferEnded(on: loops[1])
            affinity.transferEnded(on: loops[1])
            affinity.transferEnded(on: loops[0])
            // The most idle first, each count taken as it is used: two to the second loop,
            // one to the first.
            let picks = (0..<3).map { _ in affinity.loop(in: group) }
            #expect(picks[0] === loops[1])
            #expect(picks.filter { $0 === loops[1] }.count == 2)
            #expect(picks.filter { $0 === loops[0] }.count == 1)
        }
    }

    @Test func withNothingCountedTheLoopsTakeTurns() async throws {
        try await withGroup { group, loops in
            let affinity = LoopAffinity(limit: 8)
            let picked = (0..<4).map { _ in affinity.loop(in: group) }
            #expect(picked.contains { $0 === loops[0] } && picked.contains { $0 === loops[1] }, "round-robin, as before")
        }
    }

    @Test func onALoopATransferStaysOnIt() async throws {
        try await withGroup { group, loops in
            let affinity = LoopAffinity(limit: 8)
            _ = affinity.loop(in: group)
            for _ in 0..<5 { affinity.transferEnded(on: loops[1]) }
            let picked = try await loops[0].submit { ObjectIdentifier(affinity.loop(in: group)) }.get()
            #expect(picked == ObjectIdentifier(loops[0]), "the connection just freed is on the current loop")
        }
    }

    /// A burst of ends on one loop counts up to the limit only, so it cannot draw every
    /// later transfer there.
    @Test func countsStopAtTheLimit() async throws {
        try await withGroup { group, loops in
            let affinity = LoopAffinity(limit: 3)
            _ = affinity.loop(in: group)
            for _ in 0..<100 { affinity.transferEnded(on: loops[0]) }
            for _ in 0..<3 { #expect(affinity.loop(in: group) === loops[0]) }
            let rest = (0..<4).map { _ in affinity.loop(in: group) }
            #expect(rest.contains { $0 === loops[1] }, "past the limit, the loops take turns again")
        }
    }

    /// A client on another group gets one of that group's loops (AsyncHTTPClient refuses a
    /// loop from elsewhere with a precondition failure).
    @Test func anotherGroupGetsItsOwnLoops() async throws {
        try await withGroup { group, loops in
            let affinity = LoopAffinity(limit: 8)
            _ = affinity.loop(in: group)
            affinity.transferEnded(on: loops[0])
            let other = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let otherLoops = Array(other.makeIterator())
            #expect(affinity.loop(in: other) === otherLoops[0])
            let fromOtherLoop = try await otherLoops[0].submit { ObjectIdentifier(affinity.loop(in: group)) }.get()
            #expect(loops.contains { ObjectIdentifier($0) == fromOtherLoop }, "a loop of the client's own group")
            try await other.shutdownGracefully()
        }
    }
}
