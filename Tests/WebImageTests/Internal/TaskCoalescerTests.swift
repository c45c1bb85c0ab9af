import Foundation
import Testing
@testable import WebImage

/// ``TaskCoalescer``: one operation per key for any number of waiters, each waiter
/// cancellable on its own, the operation cancelled when the last one leaves.
@Suite struct TaskCoalescerTests {
    /// What an operation saw: whether it ran to its end or was cancelled.
    final class Outcomes: Sendable {
        let runs = LockedValue(0)
        let cancelled = LockedValue(0)
        let finished = LockedValue(0)

        /// Counts a run, then waits up to `duration` for a cancel.
        func run(for duration: Duration) async -> Int {
            runs.withLock { $0 += 1 }
            do {
                try await Task.sleep(for: duration)
                finished.withLock { $0 += 1 }
            } catch {
                cancelled.withLock { $0 += 1 }
            }
            return 7
        }
    }

    @Test func concurrentWaitersShareOneRun() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let outcomes = Outcomes()
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { try await coalescer.value(forKey: "k") { await outcomes.run(for: .milliseconds(100)) } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values == Array(repeating: 7, count: 8))
        #expect(outcomes.runs.withLock { $0 } == 1)
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func theLastWaiterLeavingCancelsTheOperation() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let outcomes = Outcomes()
        let waiter = Task { try await coalescer.value(forKey: "k") { await outcomes.run(for: .seconds(30)) } }
        let deadline = ContinuousClock.now + TestTime.prompt
        while outcomes.runs.withLock({ $0 }) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        while outcomes.cancelled.withLock({ $0 }) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(outcomes.cancelled.withLock { $0 } == 1)
    }

    /// The waiter that registers a new operation is cancelled before the operation's task
    /// exists: its cancel handler finds no task to cancel. The task must be cancelled as
    /// soon as it is made, or it runs to its end for nobody (a server job after its client
    /// left), and the next caller of the key starts a second one beside it.
    @Test func aWaiterCancelledBeforeItsOperationStartsStillCancelsIt() async throws {
        let coalescer = TaskCoalescer<String, Int>(beforeStarting: { withUnsafeCurrentTask { $0?.cancel() } })
        let outcomes = Outcomes()
        // In a task of its own: the seam cancels the task it runs in (the waiter's).
        let waiter = Task { try await coalescer.value(forKey: "k") { await outcomes.run(for: .seconds(30)) } }
        await #expect(throws: CancellationError.self) { try await waiter.value }
        let deadline = ContinuousClock.now + TestTime.prompt
        while outcomes.cancelled.withLock({ $0 }) + outcomes.finished.withLock({ $0 }) == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(outcomes.cancelled.withLock { $0 } == 1, "the orphaned operation was cancelled")
        #expect(coalescer.inFlightCount == 0)
    }
}
