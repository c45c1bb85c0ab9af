import Foundation
import Testing
@testable import WebImage

/// ``BackgroundStores``' order of writes and waits, with writes held open by hand.
@Suite struct BackgroundStoresTests {
    /// A write that runs until ``open()`` is called.
    final class HeldWrite: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation
        let done = LockedValue(false)

        init() { (stream, continuation) = AsyncStream.makeStream() }

        var work: @Sendable () async -> Void {
            { [self] in
                for await _ in stream { break }
                done.withLock { $0 = true }
            }
        }

        func open() { continuation.yield() }
    }

    @Test func aKeyWithNoWriteDoesNotWait() async throws {
        let stores = BackgroundStores()
        let held = HeldWrite()
        stores.run(writing: ["other"], held.work)
        try await stores.waitForWrites(of: "key")
        #expect(!held.done.withLock { $0 })
        held.open()
        await stores.waitUntilIdle()
    }

    @Test func aQueryWaitsForEveryEarlierWriteOfItsKey() async throws {
        let stores = BackgroundStores()
        let first = HeldWrite(), second = HeldWrite()
        stores.run(writing: ["key"], first.work)
        stores.run(writing: ["key"], second.work)
        let waited = Task { try await stores.waitForWrites(of: "key") }
        first.open()
        second.open()
        try await waited.value
        #expect(first.done.withLock { $0 } && second.done.withLock { $0 })
    }

    /// A review's finding: the wait in front of a disk query ignored cancellation, so a
    /// cancelled load stayed as long as a slow write of its key.
    @Test func aCancelledQueryStopsWaitingAndTheWriteGoesOn() async throws {
        let stores = BackgroundStores()
        let held = HeldWrite()
        stores.run(writing: ["key"], held.work)
        let waited = Task { try await stores.waitForWrites(of: "key") }
        try await Task.sleep(for: .milliseconds(20))
        waited.cancel()
        await #expect(throws: WebImageError.cancelled) { try await waited.value }
        #expect(!held.done.withLock { $0 }, "the write is still held")
        #expect(stores.count == 1)
        held.open()
        await stores.waitUntilIdle()
        #expect(held.done.withLock { $0 })
    }

    @Test func aQueryCancelledBeforeItWaitsThrowsAtOnce() async throws {
        let stores = BackgroundStores()
        let held = HeldWrite()
        stores.run(writing: ["key"], held.work)
        let waited = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await stores.waitForWrites(of: "key")
        }
        await #expect(throws: WebImageError.cancelled) { try await waited.value }
        held.open()
        await stores.waitUntilIdle()
    }
}
