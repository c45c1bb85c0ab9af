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

    /// The bound for "refused before any work": a header that claims 60000×60000 must be
    /// refused from the header alone. Doing the work instead (allocating and decoding
    /// gigapixels) takes tens of seconds, so 2 s still tells the two apart, while leaving
    /// room for a loaded 2-core CI machine that stalls a test thread for a few hundred
    /// milliseconds: a bound of 100 ms failed there with nothing wrong in the code.
    static var prompt: Duration { Duration.seconds(2).scaled }
}

extension Duration {
    /// This duration times ``TestTime/scale``.
    var scaled: Duration { self * TestTime.scale }
}
