/// Decides which body chunks of one download get a progress report: SDWebImage's rule, a
/// report when the fraction done grew by at least the minimum interval since the last
/// one. Without an expected size every chunk is reported. The final report is sent
/// separately.
///
/// Each ``ResponseReader`` keeps one for its exchange, under its own lock; a plain value,
/// not thread-safe by itself.
///
/// ```swift
/// var throttle = ProgressThrottle(expectedSize: 100_000, minimumInterval: 0.1)
/// if throttle.shouldReport(receivedSize: 16_384) { /* report progress */ }
/// ```
struct ProgressThrottle {
    let expectedSize: Int?
    let minimumInterval: Double
    private var lastFraction = 0.0

    init(expectedSize: Int?, minimumInterval: Double) {
        self.expectedSize = expectedSize
        self.minimumInterval = minimumInterval
    }

    mutating func shouldReport(receivedSize: Int) -> Bool {
        guard let expectedSize, expectedSize > 0 else { return true }
        // The last chunk is covered by the final report.
        guard receivedSize < expectedSize else { return false }
        let fraction = Double(receivedSize) / Double(expectedSize)
        guard fraction - lastFraction >= minimumInterval else { return false }
        lastFraction = fraction
        return true
    }
}
