import Foundation

/// Per-call options of a load: how to queue, fetch, check and decode one image.
///
/// This is the loader's slice of the manager's `ImageOptions` and `ImageContext`: the
/// manager fills it from those (priority from `lowPriority`/`highPriority`, decode options
/// from the thumbnail, scale and scale-down settings, the modifiers and decryptor from the
/// context). Callers of one URL share one download (coalescing), each keeping its own
/// ``decodeOptions``, ``priority`` (the highest raises a queued download) and
/// ``progressiveLoad``, unless a caller sets request-level fields of its own (a modifier, a
/// decryptor, ``handleCookies``, ``cachedData``): such a caller gets a request of its own,
/// since a modifier may carry one user's credentials and the others must never receive
/// what it fetched. The downloader-wide hooks of ``Downloader/Configuration`` apply to
/// every caller alike and do not prevent sharing. Callers with different
/// ``allowInvalidCertificates`` or ``pinnedAddress`` never share a download either.
///
/// ```swift
/// var options = DownloadRequestOptions()
/// options.decodeOptions.thumbnailPixelSize = ImageSize(width: 128, height: 128)
/// options.priority = .high
/// ```
public struct DownloadRequestOptions: Sendable {
    /// Where the download goes in the queue. Default ``DownloadPriority/normal``.
    public var priority: DownloadPriority = .normal
    /// Deliver partial images in ``LoadProgress/partialImage`` as data arrives. Default `false`.
    public var progressiveLoad = false
    /// Accept any server certificate (self-signed, expired, wrong host) for this load.
    /// Downloads with and without this flag are never coalesced with each other. Default `false`.
    public var allowInvalidCertificates = false
    /// How to decode the bytes (thumbnail size, scale, first frame only, ...).
    public var decodeOptions = ImageCoderOptions()
    /// Changes the request before it is sent. Default `nil`.
    public var requestModifier: RequestModifier?
    /// Changes the response head before it is checked. Default `nil`.
    public var responseModifier: ResponseModifier?
    /// Turns the body into image bytes before decoding. Default `nil`.
    public var decryptor: Decryptor?
    /// Send the cookies of ``Downloader/Configuration/cookieJar`` that match the URL and store the
    /// ones the response sets (SDWebImage's `HandleCookies`). Off by default, as in
    /// SDWebImage: an image request carries no cookies unless asked. Default `false`.
    public var handleCookies = false
    /// The bytes the cache holds for this URL, used when the server answers
    /// `304 Not Modified` (SDWebImage's `refreshCached`). Without it a 304 fails with
    /// ``WebImageError/invalidDownloadStatusCode(_:)``, since the default
    /// ``Downloader/Configuration/acceptableStatusCodes`` (200..<300) leave 304 out; with
    /// 304 among them (SDWebImage's default, 200..<400), with
    /// ``WebImageError/cacheNotModified``. Default `nil`.
    public var cachedData: Data?
    /// The validators of ``cachedData`` (its version's `ETag` / `Last-Modified`), which the
    /// request asks "changed since?" with; empty validators ask unconditionally. `nil` (the
    /// default): those of the URL's last response the downloader saw, whichever caller's,
    /// which may describe another version than ``cachedData``: a 304 for them would keep
    /// these bytes for good. The manager's `.refreshCached` always gives them.
    public var cachedDataValidators: HTTPValidators?
    /// The IP address (`203.0.113.7`, `2001:db8::7`, canonical form) the connection goes to,
    /// instead of whatever the URL's host name resolves to when the connection is made.
    /// Default `nil` (the host name is resolved as usual).
    ///
    /// For a caller that vets addresses itself (an image server refusing private networks):
    /// it resolves the name, checks the addresses, and pins the download to one it checked,
    /// so a name that resolves differently a moment later (DNS rebinding) cannot send the
    /// connection elsewhere. The `Host` header, the TLS server name and the certificate check
    /// stay the URL's host name. A pinned download does not follow redirects: a 3xx is the
    /// response (accept it in ``Downloader/Configuration/acceptableStatusCodes`` to read its
    /// `Location`), so the caller checks the next hop's address before following it. A URL
    /// whose host is itself an IP address fails with ``WebImageError/invalidURL(_:)`` unless
    /// it is this address, as does an address that is not an IP address. Pinned downloads
    /// share a network request only with other downloads of the same URL pinned to the same
    /// address. The connections of a pin are kept for
    /// later downloads of the same host pinned to the same address.
    public var pinnedAddress: String?

    /// Options with every default.
    public init() {}
}

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
