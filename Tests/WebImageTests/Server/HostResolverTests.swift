import Dispatch
import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// The source-host resolver: addresses as written need no lookup, names go to the system
/// resolver on threads of their own, and lookups that do not come back are bounded.
@Suite struct HostResolverTests {
    @Test func anAddressIsItselfAndANameIsLookedUp() async throws {
        #expect(try await HostResolver.addresses(of: "127.0.0.1") == [IPAddress(parsing: "127.0.0.1")].compactMap { $0 })
        #expect(try await HostResolver.addresses(of: "[::1]") == [IPAddress(parsing: "::1")].compactMap { $0 })
        let local = try await HostResolver.addresses(of: "localhost")
        #expect(!local.isEmpty)
    }

    /// A review's finding: lookups ran on NIO's shared blocking pool (a thread per core,
    /// also the disk caches'), and a name server that drops queries blocks each for up to
    /// 30 s; requests gave up, lookups did not, and they queued without end with every disk
    /// hit behind them. Now at most `maximumPendingLookups` wait or run, on threads of
    /// their own; the next fails at once, and a lookup works again once they drain. (A
    /// bound of four here, the test's own, so other tests' lookups are not refused.)
    @Test func lookupsThatDoNotComeBackAreBounded() async throws {
        let release = DispatchSemaphore(value: 0)
        let stuck: @Sendable (String) -> Result<[IPAddress], ImageServerError> = { _ in
            release.wait()
            return .success([])
        }
        let bound = HostResolver.PendingLookups(maximum: 4)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<bound.maximum {
                group.addTask { _ = try await HostResolver.addresses(of: "stuck-\(index).test", within: bound, lookingUpWith: stuck) }
            }
            // Every one of them admitted, then one more refused at once.
            let deadline = ContinuousClock.now + Duration.seconds(30).scaled
            while bound.current < bound.maximum, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(bound.current == bound.maximum)
            do throws(ImageServerError) {
                _ = try await HostResolver.addresses(of: "one-more.test", within: bound) { _ in .success([]) }
                Issue.record("a lookup was admitted past the bound")
            } catch {
                #expect(error.status == 502)
                #expect(error.message.contains("lookups are already waiting"), "\(error.message)")
            }
            for _ in 0..<bound.maximum { release.signal() }
            try await group.waitForAll()
        }
        #expect(bound.current == 0)
        #expect(try await HostResolver.addresses(of: "again.test", within: bound) { _ in .success([]) } == [])
    }

    /// A review's finding: eight threads served up to 64 admitted lookups, so eight names
    /// whose server drops queries stalled every other source's lookup for up to 30 s. Each
    /// admitted lookup has a thread now: with more stalled lookups than the old pool had
    /// threads, a name that answers is answered at once.
    @Test func aStalledLookupHoldsUpNoOther() async throws {
        let release = DispatchSemaphore(value: 0)
        let stuck: @Sendable (String) -> Result<[IPAddress], ImageServerError> = { _ in
            release.wait()
            return .success([])
        }
        let stalled = 12
        let bound = HostResolver.PendingLookups(maximum: stalled + 1)
        let answered = Flag()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<stalled {
                group.addTask { _ = try await HostResolver.addresses(of: "stuck-\(index).test", within: bound, lookingUpWith: stuck) }
            }
            #expect(await waitUntil { bound.current == stalled })
            group.addTask {
                // Set on the resolver's thread, as the lookup runs.
                _ = try await HostResolver.addresses(of: "answers.test", within: bound) { _ in
                    answered.set()
                    return .success([])
                }
            }
            // Behind stalled lookups the answer would never come, so the wait can be long:
            // under a sanitizer, with the whole suite beside it, a task waited 15 s for a
            // thread. The stalled lookups are released either way, so the old pool fails
            // here instead of hanging.
            #expect(await waitUntil(.seconds(60)) { answered.isSet }, "a lookup waited behind stalled ones")
            for _ in 0..<stalled { release.signal() }
            try await group.waitForAll()
        }
        #expect(answered.isSet)
    }

    /// A flag one task sets and another polls.
    private final class Flag: Sendable {
        private let value = LockedValue(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }
}
