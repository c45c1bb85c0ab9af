import Testing
@testable import WebImageServer

/// The admission state machine behind the server's 429s: who runs, who waits, who is
/// refused, and how finishing and giving up move the queue. Also the queue class around
/// it, with real tasks.
@Suite struct JobQueueStateTests {
    typealias State = JobQueue.State

    @Test func arrivalsRunUpToTheWorkersThenWaitThenAreRefused() {
        var state = State(workers: 2, queueSize: 2)
        #expect(state.arrive() == .run)
        #expect(state.arrive() == .run)
        #expect(state.arrive() == .wait(id: 1))
        #expect(state.arrive() == .wait(id: 2))
        #expect(state.arrive() == .reject)
        #expect(state.arrive() == .reject)
        #expect(state.running == 2)
        #expect(state.waiting == [1, 2])
    }

    @Test func finishingHandsTheSlotToTheOldestWaiter() {
        var state = State(workers: 1, queueSize: 3)
        #expect(state.arrive() == .run)
        #expect(state.arrive() == .wait(id: 1))
        #expect(state.arrive() == .wait(id: 2))
        #expect(state.finish() == 1)
        #expect(state.running == 1)
        #expect(state.waiting == [2])
        #expect(state.finish() == 2)
        #expect(state.running == 1)
        #expect(state.finish() == nil)
        #expect(state.running == 0)
        #expect(state.waiting.isEmpty)
    }

    @Test func aFreedSlotIsTakenByANewArrivalOnlyWhenNobodyWaits() {
        var state = State(workers: 1, queueSize: 1)
        #expect(state.arrive() == .run)
        #expect(state.arrive() == .wait(id: 1))
        // The slot went to the waiter, so the queue has room again but no free worker.
        #expect(state.finish() == 1)
        #expect(state.arrive() == .wait(id: 2))
        #expect(state.arrive() == .reject)
        #expect(state.finish() == 2)
        #expect(state.finish() == nil)
        #expect(state.arrive() == .run)
    }

    @Test func abandoningLeavesTheQueueAndFreesItsPlace() {
        var state = State(workers: 1, queueSize: 2)
        #expect(state.arrive() == .run)
        #expect(state.arrive() == .wait(id: 1))
        #expect(state.arrive() == .wait(id: 2))
        #expect(state.arrive() == .reject)
        let abandoned = state.abandon(id: 1)
        #expect(abandoned)
        #expect(state.waiting == [2])
        #expect(state.arrive() == .wait(id: 3))
        // The abandoned waiter is never handed the slot.
        #expect(state.finish() == 2)
        #expect(state.finish() == 3)
        #expect(state.finish() == nil)
        #expect(state.running == 0)
    }

    @Test func abandoningAfterBeingHandedTheSlotIsRefused() {
        var state = State(workers: 1, queueSize: 1)
        #expect(state.arrive() == .run)
        #expect(state.arrive() == .wait(id: 1))
        #expect(state.finish() == 1)
        // Too late: it holds the slot and must give it back with finish().
        let tooLate = state.abandon(id: 1)
        #expect(!tooLate)
        #expect(state.running == 1)
        let unknown = state.abandon(id: 99)
        #expect(!unknown)
        #expect(state.finish() == nil)
        #expect(state.running == 0)
    }

    @Test func zeroQueueRefusesEverythingPastTheWorkers() {
        var state = State(workers: 1, queueSize: 0)
        #expect(state.arrive() == .run)
        #expect(state.arrive() == .reject)
        #expect(state.finish() == nil)
        #expect(state.arrive() == .run)
    }

    @Test func sizesAreClampedToSaneValues() {
        var state = State(workers: 0, queueSize: -3)
        #expect(state.workers == 1)
        #expect(state.queueSize == 0)
        #expect(state.arrive() == .run)
        #expect(state.arrive() == .reject)
    }

    @Test func finishingMoreThanStartedNeverGoesNegative() {
        var state = State(workers: 2, queueSize: 0)
        #expect(state.finish() == nil)
        #expect(state.running == 0)
        #expect(state.arrive() == .run)
        #expect(state.arrive() == .run)
        #expect(state.arrive() == .reject)
    }

    // MARK: The queue with real tasks

    @Test func queueRefusesAtOnceWhenFullAndAdmitsWaitersInOrder() async throws {
        let queue = JobQueue(workers: 1, queueSize: 1)
        try await queue.enter()
        let waiter = Task { try await queue.enter() }
        #expect(await waitUntil { queue.waiting == 1 })
        await #expect(throws: ImageServerError.queueFull) { try await queue.enter() }
        queue.leave()
        try await waiter.value
        #expect(queue.running == 1)
        #expect(queue.waiting == 0)
        queue.leave()
        #expect(queue.running == 0)
    }

    @Test func cancelledWaiterLeavesTheQueueAndNeverRuns() async throws {
        let queue = JobQueue(workers: 1, queueSize: 2)
        try await queue.enter()
        let cancelled = Task { try await queue.enter() }
        #expect(await waitUntil { queue.waiting == 1 })
        let next = Task { try await queue.enter() }
        #expect(await waitUntil { queue.waiting == 2 })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(queue.waiting == 1)
        queue.leave()
        try await next.value
        #expect(queue.running == 1)
        queue.leave()
        #expect(queue.running == 0)
        #expect(queue.waiting == 0)
    }
}
