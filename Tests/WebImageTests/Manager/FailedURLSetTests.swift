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
