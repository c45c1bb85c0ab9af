import Logging
import ServiceLifecycle
import Testing
@testable import WebImage
@testable import WebImageServer

/// The bound on `ImageServer.run`'s wait for its service group, tried on a real group with
/// a service that ignores both the graceful shutdown and the cancellation after it (what a
/// connection's task suspended out of cancellation's reach does): without the bound the
/// wait never ends, as two CI runs of the server tests did.
///
/// Named for the server pass of `make test` (its filter is `ImageServer`): in the first
/// pass, a thousand tests, some blocking the two threads of the cooperative pool for
/// seconds, starved the groups here for half a minute and every time bound failed.
@Suite struct ImageServerStopWatchTests {
    /// Runs until `release` is called, whatever happens to its task.
    final class StuckService: Service, Sendable {
        private let waiter = LockedValue<CheckedContinuation<Void, Never>?>(nil)
        private let released = LockedValue(false)

        func run() async throws {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = released.withLock { $0 }
                if done { continuation.resume() } else { waiter.withLock { $0 = continuation } }
            }
        }

        func release() {
            released.withLock { $0 = true }
            waiter.withLock { waiter in
                waiter?.resume()
                waiter = nil
            }
        }
    }

    /// Runs until the graceful shutdown, as a well-behaved service does.
    struct PoliteService: Service {
        func run() async throws {
            try? await gracefulShutdown()
        }
    }

    private func group(_ services: [any Service], watch: StopWatch, grace: Duration) -> ServiceGroup {
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) } + [.init(service: watch, successTerminationBehavior: .ignore)],
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        configuration.maximumGracefulShutdownDuration = grace
        return ServiceGroup(configuration: configuration)
    }

    @Test func aServiceThatNeverStopsIsLeftAndNamedAfterTheGraceAndTheAllowance() async throws {
        let watch = StopWatch()
        let stuck = StuckService()
        defer { stuck.release() }
        let group = group([watch.track(PoliteService(), named: "polite"), watch.track(stuck, named: "stuck")], watch: watch, grace: .milliseconds(200))
        let running = Task { try await group.run() }
        try #require(await waitUntil { watch.servicesStillRunning == ["polite", "stuck"] })
        let start = ContinuousClock.now
        Task { await group.triggerGracefulShutdown() }
        let left = try await watch.awaitEnd(of: running, gracePeriod: .milliseconds(200), allowance: .seconds(1))
        let waited = ContinuousClock.now - start
        #expect(left == ["stuck"])
        #expect(waited >= .milliseconds(1200), "\(waited)")
        #expect(waited < .seconds(10), "\(waited)")
        // Released, the stuck service ends and so does the group.
        stuck.release()
        try await running.value
        #expect(watch.servicesStillRunning.isEmpty)
    }

    @Test func aGroupThatStopsIsWaitedForAndNothingIsLeft() async throws {
        let watch = StopWatch()
        let group = group([watch.track(PoliteService(), named: "polite")], watch: watch, grace: .seconds(30))
        let running = Task { try await group.run() }
        try #require(await waitUntil { watch.servicesStillRunning == ["polite"] })
        Task { await group.triggerGracefulShutdown() }
        let start = ContinuousClock.now
        let left = try await watch.awaitEnd(of: running, gracePeriod: .seconds(30))
        #expect(left == nil)
        #expect(ContinuousClock.now - start < .seconds(10), "it waited for the group, not the grace period")
        #expect(watch.gracefulStopBegan != nil)
    }

    /// A group cancelled because a service failed is bounded too.
    @Test func aGroupCancelledByAFailureIsBoundedToo() async throws {
        struct Failing: Service, Error {
            func run() async throws { throw self }
        }
        let watch = StopWatch()
        let stuck = StuckService()
        defer { stuck.release() }
        let group = group([watch.track(stuck, named: "stuck"), Failing()], watch: watch, grace: .milliseconds(200))
        let running = Task { try await group.run() }
        let start = ContinuousClock.now
        let left = try await watch.awaitEnd(of: running, gracePeriod: .milliseconds(200), allowance: .seconds(1))
        #expect(left == ["stuck"])
        #expect(ContinuousClock.now - start < .seconds(15))
        stuck.release()
        await #expect(throws: Failing.self) { try await running.value }
    }
}
