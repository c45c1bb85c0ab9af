import Foundation
import WebImage

/// The server's default ``SourceFetching``: fetches only sources the operator allows, and
/// connects only to addresses the ``SourceAddressPolicy`` permits, however the URL is spelled
/// and whatever its host's DNS answers.
///
/// Each hop (the source, then each redirect) goes: normalise the URL (``NormalizedSourceURL``) →
/// the allow-list (``SourcePattern``, when one is set) → resolve the host
/// (``HostResolver``) → check every address → download with the library's ``Downloader``
/// pinned to the first address (``DownloadRequestOptions/pinnedAddress``: the connection
/// goes to that address, the `Host` header and TLS name stay the host's) → a 3xx comes back
/// unfollowed, and its `Location` is the next hop, up to ``maxRedirects``.
///
/// Why this stops DNS rebinding: the address checked is the address connected to. The HTTP
/// client never resolves the name itself (a name that answers a public address to the check
/// and `127.0.0.1` a moment later has no second chance to be asked), and a redirect is
/// never followed by the client, so no hop escapes the check.
///
/// The downloader coalesces as before: concurrent requests for one source pinned to the
/// same address share one origin fetch (each request resolves and checks the host itself,
/// and joins only a fetch pinned to an address it checked too). Its byte limit refuses an
/// announced `Content-Length` over it before the body and cuts a body that grows past it,
/// and the server runs the whole fetch, every hop, under the download time-out.
///
/// Sources on the server's own disk (`local:`, `file:`) and `data:` URLs are refused unless
/// the operator turns them on (``localFiles``, ``allowsDataSources``); the allow-list speaks
/// of http(s) origins only, and no redirect may lead to either.
///
/// A refused source is a 404 (``ImageServerError/sourceForbidden(_:)``), as imgproxy answers.
public struct GuardedSourceFetcher: SourceFetching {
    /// The downloader: its limits, time-out and coalescing apply, and it keeps one HTTP
    /// client per host and pinned address, so later sources from one origin reuse its
    /// connections.
    public let downloader: Downloader
    /// `WEBIMAGE_ALLOWED_SOURCES`: a source (and each redirect) must match one; empty
    /// allows any http(s) URL.
    public let allowedSources: [SourcePattern]
    /// Which addresses may be connected to.
    public let addressPolicy: SourceAddressPolicy
    /// `WEBIMAGE_MAX_REDIRECTS`: redirects followed before a 502.
    public let maxRedirects: Int
    /// `WEBIMAGE_LOCAL_FILESYSTEM_ROOT`: the folder `local:` and `file:` sources are read
    /// from; `nil` (the default) refuses them.
    public let localFiles: LocalFileSource?
    /// `WEBIMAGE_ALLOW_DATA_SOURCES`: whether a `data:` URL is a source; default `false`.
    public let allowsDataSources: Bool
    /// The largest source, in bytes, whatever its scheme: the downloader's limit.
    public var maxBytes: Int { downloader.config.maximumResponseSize }

    /// The redirect statuses followed; the downloader accepts them so their `Location`
    /// comes back.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// A fetcher whose downloader refuses bodies over `maxBytes` and gives up on a
    /// connection idle for `timeout`; `userAgent`, when given, replaces the library's
    /// `User-Agent`. `maxConcurrentDownloads` must be at least the server's workers: a
    /// download waiting inside the downloader spends its download time-out there, and with
    /// more workers than the limit the excess failed as the origin's time-outs.
    public init(
        allowedSources: [SourcePattern],
        addressPolicy: SourceAddressPolicy,
        maxRedirects: Int,
        maxBytes: Int,
        timeout: Duration,
        userAgent: String? = nil,
        localFiles: LocalFileSource? = nil,
        allowsDataSources: Bool = false,
        maxConcurrentDownloads: Int = DownloaderSourceFetcher.maxConcurrentDownloads
    ) {
        var configuration = Downloader.Configuration()
        if let userAgent { configuration.httpHeaders["User-Agent"] = userAgent }
        configuration.maximumResponseSize = maxBytes
        configuration.timeout = timeout
        configuration.maxConcurrentDownloads = maxConcurrentDownloads
        configuration.acceptableStatusCodes = Set(200..<300).union(Self.redirectStatuses)
        self.downloader = Downloader(config: configuration)
        self.allowedSources = allowedSources
        self.addressPolicy = addressPolicy
        self.maxRedirects = maxRedirects
        self.localFiles = localFiles
        self.allowsDataSources = allowsDataSources
    }

    public func fetch(_ url: URL) async throws(ImageServerError) -> Data {
        switch url.scheme?.lowercased() {
        case "local", "file":
            guard let localFiles else {
                throw .sourceForbidden("local sources are off: set WEBIMAGE_LOCAL_FILESYSTEM_ROOT to serve them")
            }
            return try await localFiles.read(url, maxBytes: maxBytes)
        case "data":
            return try dataSource(url)
        default:
            return try await fetchRemote(url)
        }
    }

    /// The bytes a `data:` source carries, when data sources are on.
    func dataSource(_ url: URL) throws(ImageServerError) -> Data {
        guard allowsDataSources else {
            throw .sourceForbidden("data: sources are off: set WEBIMAGE_ALLOW_DATA_SOURCES to serve them")
        }
        do {
            return try DataURLLoader.payload(of: url.absoluteString, limit: maxBytes)
        } catch .responseTooLarge {
            throw .sourceTooLarge("the source is larger than \(maxBytes) bytes")
        } catch {
            throw .badOptions("malformed data: source: \(error.description)")
        }
    }

    /// An http(s) source, each hop checked and pinned.
    func fetchRemote(_ url: URL) async throws(ImageServerError) -> Data {
        var hop = url
        var redirects = 0
        while true {
            let location = try checkedLocation(hop, redirected: redirects > 0)
            // The host as written, as the HTTP client would have resolved it (the normalised
            // one drops a trailing dot, which changes how a resolver searches).
            let addresses = try await HostResolver.addresses(of: hop.host ?? location.host)
            let address = try addressPolicy.checkedAddress(of: location.host, among: addresses)
            var options = DownloadRequestOptions()
            options.pinnedAddress = address.description
            let downloaded: DownloadedData
            do {
                downloaded = try await downloader.loadData(from: hop, options: options)
            } catch {
                throw .fetching(error)
            }
            guard let status = downloaded.response?.statusCode, Self.redirectStatuses.contains(status) else {
                return downloaded.data
            }
            guard redirects < maxRedirects else {
                throw .sourceFailed("the source redirected more than \(maxRedirects) times (WEBIMAGE_MAX_REDIRECTS)")
            }
            guard let target = downloaded.response?.headers.first(name: "Location"),
                  let next = URL(string: target, relativeTo: hop)?.absoluteURL else {
                throw .sourceFailed("the origin answered \(status) without a usable Location")
            }
            redirects += 1
            hop = next
        }
    }

    /// `url` normalised, once it passes the allow-list. A redirect to a URL the server would
    /// not fetch (another scheme, no host) is refused as a forbidden source, not as a
    /// malformed request: the client's URL was fine.
    func checkedLocation(_ url: URL, redirected: Bool) throws(ImageServerError) -> NormalizedSourceURL {
        let location: NormalizedSourceURL
        do {
            location = try NormalizedSourceURL(url)
        } catch where redirected {
            throw .sourceForbidden("the origin redirected to a URL the server does not fetch: \(error.message)")
        }
        guard allowedSources.isEmpty || allowedSources.contains(where: { $0.matches(location) }) else {
            throw .sourceForbidden("the source \(location.scheme)://\(location.host):\(location.port) is not in WEBIMAGE_ALLOWED_SOURCES")
        }
        return location
    }
}
