/// Where a download goes in the downloader's queue (SDWebImage's `lowPriority` and
/// `highPriority` options).
///
/// Queued downloads start highest priority first; within one priority, in the order of
/// ``Downloader/Configuration/executionOrder``. A priority never interrupts a running download.
///
/// ```swift
/// var options = DownloadRequestOptions()
/// options.priority = .high
/// ```
public enum DownloadPriority: Int, Sendable, Comparable, CaseIterable {
    /// Starts after every queued `normal` and `high` download.
    case low
    /// The default.
    case normal
    /// Starts before every queued `normal` and `low` download.
    case high

    public static func < (lhs: DownloadPriority, rhs: DownloadPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
