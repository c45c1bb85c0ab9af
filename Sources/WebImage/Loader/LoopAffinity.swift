import NIOCore
import NIOPosix

/// Picks the event loop a transfer's response delegate runs on, so that it is, as often as
/// can be told, the loop of the connection the transfer will use.
///
/// AsyncHTTPClient runs a response delegate on the loop it is given. It prefers an idle
/// connection on that loop, but takes one on another loop when that is all there is, and
/// then hops every callback (the head, each body part, the end) from the connection's
/// thread to the delegate's: one wake-up of another thread each. A download started from
/// an event loop (the end of another transfer) takes that loop, where the connection just
/// freed is. One started from elsewhere, which is how callers that await one load after
/// another start theirs, got a loop round-robin, and on a machine with two loops half of
/// those landed away from their connection: measured with `download-bench list --lanes`
/// (Benchmarks/README.md, "A tenth look"), that was a fifth of the downloader's CPU time.
///
/// So the downloader counts, per loop, the transfers that ended there (each left a
/// connection idle on it) less the transfers it sent there since, and gives a transfer
/// started off the loops the loop with the most; with none counted, the next round-robin.
/// It is an estimate, not a view of the pool: a connection the pool has closed, or one to
/// another host, only costs the hops it always did. Counts stop at `limit` each, so that a
/// burst of ends on one loop cannot draw every later transfer to it. Thread-safe.
final class LoopAffinity: Sendable {
    private struct Loop {
        let loop: any EventLoop
        var idle: Int
    }

    private struct State {
        /// The group the loops are of: the first one asked about (every client of a
        /// downloader runs on AsyncHTTPClient's default group).
        var group: ObjectIdentifier?
        var loops: [Loop] = []
    }

    private let state = LockedValue(State())
    private let limit: Int

    /// Counts of at most `limit` per loop (the connections a client may keep per host).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The loop for a transfer about to be sent by a client on `group`.
    func loop(in group: any EventLoopGroup) -> any EventLoop {
        let current = MultiThreadedEventLoopGroup.currentEventLoop
        let chosen: (any EventLoop)? = state.withLock { state in
            if state.group == nil {
                state.group = ObjectIdentifier(group)
                state.loops = group.makeIterator().map { Loop(loop: $0, idle: 0) }
            }
            // Another group (none today): its loops are not counted.
            guard state.group == ObjectIdentifier(group) else { return nil }
            var index = current.flatMap { current in state.loops.firstIndex { $0.loop === current } }
            if index == nil, let most = state.loops.indices.max(by: { state.loops[$0].idle < state.loops[$1].idle }), state.loops[most].idle > 0 {
                index = most
            }
            guard let index else { return nil }
            state.loops[index].idle = max(0, state.loops[index].idle - 1)
            return state.loops[index].loop
        }
        // `any()` is the current loop when it is one of the group's, else the next in turn.
        return chosen ?? group.any()
    }

    /// A transfer whose delegate ran on `loop` ended: its connection is idle there now.
    func transferEnded(on loop: any EventLoop) {
        state.withLock { state in
            guard let index = state.loops.firstIndex(where: { $0.loop === loop }) else { return }
            state.loops[index].idle = min(limit, state.loops[index].idle + 1)
        }
    }
}
