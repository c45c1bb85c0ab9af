import Foundation

/// What the downloader reports about each network request (SDWebImage's download
/// notifications: start, receive response, stop, finish).
///
/// Events describe network requests, not callers: one coalesced request gives one
/// `started` however many tokens share it. `stopped` follows every `started` (success,
/// failure or cancellation); `finished` follows `stopped` only when the body arrived whole
/// and passed every check. Decoding comes after.
///
/// ```swift
/// for await event in downloader.events() {
///     if case .finished(let url, let metrics) = event { print(url, metrics.totalTime) }
/// }
/// ```
public enum DownloadEvent: Sendable, Equatable {
    /// A request for this URL went out.
    case started(URL)
    /// The response head arrived (after any redirects and authentication).
    case receivedResponse(URL, statusCode: Int, expectedSize: Int)
    /// The request ended, for whatever reason.
    case stopped(URL, DownloadMetrics)
    /// The request ended with a complete, acceptable body.
    case finished(URL, DownloadMetrics)
}
