import Foundation

/// Measurements of one HTTP transfer, for logs, dashboards and benchmarks.
///
/// Reported in ``ImageLoaderOutput/metrics`` and in ``DownloadEvent/stopped(_:_:)`` /
/// ``DownloadEvent/finished(_:_:)``. One transfer may serve many callers (coalescing), so
/// they all see the same metrics.
///
/// ```swift
/// if let m = result.metrics { print(m.bytesReceived, m.totalTime, m.redirectCount) }
/// ```
public struct DownloadMetrics: Sendable, Equatable {
    /// The URL requested (before redirects).
    public var url: URL
    /// The final status code, or `nil` when no response arrived.
    public var statusCode: Int?
    /// Body bytes received.
    public var bytesReceived: Int
    /// From the start of the request to the response head; `nil` when none arrived.
    public var timeToFirstByte: Duration?
    /// From the start of the request to the end of the body (or the failure).
    public var totalTime: Duration
    /// How many redirects were followed.
    public var redirectCount: Int

    /// Creates a record.
    public init(url: URL, statusCode: Int?, bytesReceived: Int, timeToFirstByte: Duration?, totalTime: Duration, redirectCount: Int) {
        self.url = url
        self.statusCode = statusCode
        self.bytesReceived = bytesReceived
        self.timeToFirstByte = timeToFirstByte
        self.totalTime = totalTime
        self.redirectCount = redirectCount
    }
}
