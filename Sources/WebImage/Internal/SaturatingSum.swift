extension Int {
    /// `self + other`, or `Int.max` (`Int.min`) past the top (bottom) instead of trapping.
    /// For sums of sizes that come from outside: a sparse file, or a stat of one, can claim
    /// exabytes, and a cache's total of such sizes must not stop the process.
    package func saturatingAdding(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
