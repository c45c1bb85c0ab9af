import Foundation

/// How much longer than usual the tests' time limits are: `WEBIMAGE_TEST_TIME_SCALE`, a whole
/// number, default 1.
///
/// `make test-tsan` sets it: under the thread sanitizer the same code runs 5 to 15 times
/// slower, so a bound that says "at once, not after the 10-s time-out" would fail for the
/// sanitizer's cost alone. Scaling every limit of a test together keeps their ratios (a
/// time-out still fires before the origin finishes, an answer still comes well before
/// the time-out), so each test still checks what it says.
enum TestTime {
    static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["WEBIMAGE_TEST_TIME_SCALE"],
              let value = Int(text), value >= 1 else { return 1 }
        return value
    }()
}

extension Duration {
    /// This duration times ``TestTime/scale``.
    var scaled: Duration { self * TestTime.scale }
}
