import Foundation

/// One progress report of a load: how many bytes arrived, how many are expected, and,
/// for progressive loads, the partial image decoded so far.
///
/// The downloader reports `(0, -1)` when a request starts, `(0, expected)` when the
/// response arrives, then one report per chunk (throttled by
/// ``Downloader/Configuration/minimumProgressInterval``), always including the final one, where
/// `receivedSize == expectedSize`.
///
/// ```swift
/// let result = try await Downloader.shared.load(url, options: .init()) { p in
///     print(p.receivedSize, "of", p.expectedSize)
/// }
/// ```
public struct LoadProgress: Sendable {
    /// Bytes of the body received so far.
    public var receivedSize: Int
    /// The body's announced length, or -1 when the server did not announce one (yet).
    public var expectedSize: Int
    /// The URL being loaded (the one asked for, before redirects).
    public var url: URL
    /// With ``DownloadRequestOptions/progressiveLoad``, a partial image of the bytes so far
    /// (``Image/isIncremental`` is `true`); `nil` otherwise or when none could be made yet.
    public var partialImage: Image?

    /// Creates a report.
    public init(receivedSize: Int, expectedSize: Int, url: URL, partialImage: Image? = nil) {
        self.receivedSize = receivedSize
        self.expectedSize = expectedSize
        self.url = url
        self.partialImage = partialImage
    }

    /// The fraction done in 0...1, or `nil` while the expected size is unknown.
    public var fractionCompleted: Double? {
        guard expectedSize > 0 else { return nil }
        return min(1, Double(receivedSize) / Double(expectedSize))
    }
}
