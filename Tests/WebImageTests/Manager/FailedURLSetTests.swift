import Foundation
import Testing
@testable import WebImage

/// The failed-URL set's bounds, on a clock the test moves by hand.
@Suite struct FailedURLSetTests {
    /// A clock that stands still until `advance` is called.
    final class ManualClock: Sendable {
        private let instant = LockedValue(ContinuousClock.now)
        var now: @Sendable () -> ContinuousClock.Instant { { self.instant.withLock { $0 } } }
        func advance(by duration: Duration) { instant.withLock { $0 += duration } }
    }

    private func url(_ index: Int) -> URL {
        URL(string: "https://images.example/\(index).png")!
    }

    @Test func defaultsAreTenThousandURLsForAnHour() {
        let limits = ImageManager.FailedURLLimits()
        #expect(limits.capacity == 10_000)
        #expect(limits.expiry == .seconds(3600))
        #expect(ImageManager.FailedURLLimits(capacity: -5).capacity == 0)
    }

    @Test func theOldestFailureIsForgottenBeyondTheCapacity() {
        let clock = ManualClock()
        let set = FailedURLSet(limits: .init(capacity: 3), now: clock.now)
        for index in 0..<3 { set.insert(url(index)) }
        // Failing again makes 0 the newest failure, so 1 is now the oldest.
        set.insert(url(0))
        set.insert(url(3))
        #expect(set.count == 3)
        #expect(set.contains(url(0)))
        #expect(!set.contains(url(1)))
        #expect(set.contains(url(2)) && set.contains(url(3)))
    }

    @Test func aThousandTimesTheCapacityStaysWithinIt() {
        let set = FailedURLSet(limits: .init(capacity: 10))
        for index in 0..<10_000 { set.insert(url(index)) }
        #expect(set.count == 10)
        #expect(set.contains(url(9_999)))
        #expect(!set.contains(url(9_989)))
    }

    /// A review's finding: a failed `data:` URL was held whole, and ten thousand of them (each
    /// up to the loader's 100 MiB) had no bound in bytes. A long URL is held by its digest:
    /// found again, told apart from one that differs in its last byte, and removed.
    @Test func aLongURLIsHeldByItsDigest() throws {
        let payload = Data(repeating: 0x41, count: 1 << 20).base64EncodedString()
        let long = try #require(URL(string: "data:image/png;base64," + payload))
        let other = try #require(URL(string: "data:image/png;base64," + payload.dropLast() + "B"))
        let key = FailedURLSet.key(for: long)
        #expect(key.utf8.count < 100, "held by \(key.utf8.count) bytes")
        #expect(key != FailedURLSet.key(for: other))
        #expect(FailedURLSet.key(for: url(1)) == url(1).absoluteString, "a short URL is held as it is")
        let set = FailedURLSet(limits: .init())
        set.insert(long)
        #expect(set.contains(long))
        #expect(!set.contains(other))
        set.remove(long)
        #expect(!set.contains(long) && set.count == 0)
    }

    @Test func aFailureExpiresAndFailingAgainRestartsItsTime() {
        let clock = ManualClock()
        let set = FailedURLSet(limits: .init(expiry: .seconds(60)), now: clock.now)
        set.insert(url(1))
        set.insert(url(2))
        clock.advance(by: .seconds(59))
        #expect(set.contains(url(1)))
        set.insert(url(2))
        clock.advance(by: .seconds(1))
        #expect(!set.contains(url(1)), "60 s after failing, the URL loads again")
        #expect(set.count == 1, "the expired entry is dropped when looked up")
        #expect(set.contains(url(2)))
        clock.advance(by: .seconds(59))
        #expect(!set.contains(url(2)))
    }

    @Test func aCapacityOfZeroRemembersNothing() {
        let set = FailedURLSet(limits: .init(capacity: 0))
        set.insert(url(1))
        #expect(!set.contains(url(1)))
        #expect(set.count == 0)
    }

    @Test func removeAndRemoveAllForget() {
        let set = FailedURLSet(limits: .init())
        set.insert(url(1))
        set.insert(url(2))
        set.remove(url(1))
        #expect(!set.contains(url(1)) && set.contains(url(2)))
        set.removeAll()
        #expect(set.count == 0)
    }
}
