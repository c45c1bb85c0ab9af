import Foundation
import Logging

extension Downloader {
    /// The settings of a ``Downloader`` (SDWebImage's `SDWebImageDownloaderConfig`), with
    /// SDWebImage's defaults.
    ///
    /// The downloader copies the configuration when it is created; ``Downloader/maxConcurrentDownloads``,
    /// ``Downloader/isSuspended`` and the headers can also be changed on the downloader while it runs.
    ///
    /// ```swift
    /// var config = Downloader.Configuration()
    /// config.maxConcurrentDownloads = 2
    /// config.timeout = .seconds(5)
    /// let downloader = Downloader(config: config)
    /// ```
    public struct Configuration: Sendable {
        /// The order in which queued downloads start, within one priority.
        public enum ExecutionOrder: Sendable, Equatable {
            /// Oldest first (the default).
            case fifo
            /// Newest first: the last image asked for is the one on screen now.
            case lifo
        }

        /// The `Accept` header sent by default, SDWebImage's.
        public static let defaultAccept = "image/*,*/*;q=0.8"
        /// The `User-Agent` header sent by default: the library's name.
        public static let defaultUserAgent = "WebImage/1.0 (swift-web-image; Linux)"

        /// How many downloads run at once; the rest wait in the queue. Default 6.
        public var maxConcurrentDownloads = 6
        /// How long a request may take to connect, and then go without receiving its head
        /// or a body chunk, before it fails with ``WebImageError/timedOut``. Like
        /// `NSURLRequest.timeoutInterval` it is an idle limit, so a slow but steady download
        /// is not cut off; a head trickled in a byte at a time must still be whole within it.
        /// Default 15 seconds.
        public var timeout: Duration = .seconds(15)
        /// How long one download may take in all, from sending its request to its last
        /// byte (redirects and a Basic challenge's second request included), before it fails
        /// with ``WebImageError/timedOut`` (curl's `--max-time`, URLSession's
        /// `timeoutIntervalForResource`). ``timeout`` is an idle limit: a server that sends a
        /// byte just inside it keeps a download, and one of the
        /// ``maxConcurrentDownloads`` slots, without end; a service fetching URLs its users
        /// choose should set this. Default `nil` (no limit, as SDWebImage).
        public var maximumDuration: Duration?
        /// FIFO or LIFO among queued downloads of one priority. Default ``ExecutionOrder/fifo``.
        public var executionOrder: ExecutionOrder = .fifo
        /// Status codes that count as success; any other fails with
        /// ``WebImageError/invalidDownloadStatusCode(_:)``. Default 200..<300.
        public var acceptableStatusCodes: Set<Int> = Set(200..<300)
        /// Media types (`image/png`, lowercased, without parameters) that count as success;
        /// any other fails with ``WebImageError/invalidDownloadContentType(_:)``. A response
        /// without `Content-Type` is not checked, as in SDWebImage. Default `nil` (any).
        public var acceptableContentTypes: Set<String>?
        /// The smallest change of the fraction done (0...1) between two progress reports;
        /// the final report is always sent. Default 0 (every chunk).
        public var minimumProgressInterval: Double = 0
        /// Headers sent with every request. Default `Accept: image/*,*/*;q=0.8` and a
        /// `User-Agent` naming the library.
        public var httpHeaders: [String: String] = [
            "Accept": Configuration.defaultAccept,
            "User-Agent": Configuration.defaultUserAgent,
        ]
        /// HTTP Basic credentials (SDWebImage's `urlCredential`), sent once when a server
        /// answers 401 with a `WWW-Authenticate: Basic` challenge for the URL asked for (not
        /// for a host a redirect led to). Any host may challenge: a service that fetches URLs
        /// its users choose should add credentials per origin with a ``RequestModifier``
        /// instead. Default `nil`.
        public var username: String?
        /// The password for ``username``. Default `nil`.
        public var password: String?
        /// Accept any server certificate for every download. Default `false`.
        public var allowInvalidCertificates = false
        /// The certificate authorities a server's certificate must chain to: the system's,
        /// a private bundle in their place (curl's `--cacert`) or beside them. Default
        /// ``Downloader/TrustRoots/system``.
        public var trustRoots = TrustRoots.system
        /// The client certificate and key presented to a server that asks for one (mutual
        /// TLS, SDWebImage's `urlCredential` identity). Default `nil`: none.
        public var clientIdentity: ClientIdentity?
        /// Which proxy each download goes through. Default ``Downloader/ProxySettings/direct``
        /// (no proxy, and no environment variable read: see
        /// ``Downloader/ProxySettings/environment(_:)`` for curl's `https_proxy`,
        /// `http_proxy` and `no_proxy`).
        public var proxy = ProxySettings.direct
        /// Whether `https:` downloads may use HTTP/2 when the server offers it (negotiated
        /// with ALPN; many requests then share one connection). `false` keeps every download
        /// on HTTP/1.1 (curl's `--http1.1`). Plain `http:` is always HTTP/1.1. Default `true`.
        public var allowsHTTP2 = true
        /// The most HTTP/1.1 connections open at once to one host (scheme, host and port) per
        /// route; further requests to it wait for a free connection. An HTTP/2 host gets one
        /// connection whatever this is. Default `nil`: as many as ``maxConcurrentDownloads``,
        /// and at least 8 (AsyncHTTPClient's default). Values below 1 count as 1.
        ///
        /// A request waiting for a free connection fails with ``WebImageError/timedOut``
        /// after ``timeout`` (AsyncHTTPClient bounds that wait by its connect time-out), so
        /// a limit below ``maxConcurrentDownloads`` suits downloads spread over hosts, or
        /// short ones; to queue many downloads of one host, lower ``maxConcurrentDownloads``
        /// instead (the downloader's own queue has no time limit).
        public var maxConnectionsPerHost: Int?
        /// The largest body accepted, in bytes; a larger announced length fails at once and a
        /// body that grows past it is stopped, both with ``WebImageError/responseTooLarge(limit:)``.
        /// Default 100 MiB.
        public var maximumResponseSize = 100 * 1024 * 1024
        /// How many bytes a download streamed to a file (``Downloader/downloadFile(with:to:options:progress:completion:)``)
        /// gathers before each write: its memory, whatever the body's size. Larger means
        /// fewer writes and hops off the event loop; smaller, less memory per download.
        /// Default 256 KiB.
        public var streamingBufferSize = 256 * 1024
        /// How many redirects are followed before failing; cycles always fail. Default 10.
        public var maximumRedirects = 10
        /// The cookies sent and stored by downloads with ``DownloadRequestOptions/handleCookies``.
        /// Default ``CookieJar/shared``.
        public var cookieJar = CookieJar.shared
        /// Changes every request whose ``DownloadRequestOptions`` name no request modifier
        /// (SDWebImage's downloader-level `requestModifier`; a load's own one replaces it).
        /// Default `nil`.
        public var requestModifier: RequestModifier?
        /// Checks or changes every response whose options name no response modifier
        /// (SDWebImage's downloader-level `responseModifier`). Default `nil`.
        public var responseModifier: ResponseModifier?
        /// Decrypts every body whose options name no decryptor (SDWebImage's
        /// downloader-level `decryptor`). Default `nil`.
        public var decryptor: Decryptor?
        /// The coder that decodes downloaded bytes. Default ``CodersManager/shared``.
        public var coder: any ImageCoder = CodersManager.shared
        /// Makes the partial-image decoder of each progressive download. Default: a
        /// ``ProgressivePartialImageDecoder`` over the shared coders manager's incremental decoders.
        public var partialImageDecoder: @Sendable () -> any PartialImageDecoder = {
            ProgressivePartialImageDecoder(coders: CodersManager.shared)
        }
        /// Where the downloader logs (debug level, one line per request event; URLs without
        /// credentials or query, never header values). Default: a logger labelled
        /// `WebImage.Downloader`.
        public var logger = Logger(label: "WebImage.Downloader")

        /// A configuration with every default.
        public init() {}
    }
}

/// The old name of ``Downloader/Configuration``, kept for one release.
@available(*, deprecated, renamed: "Downloader.Configuration")
public typealias DownloaderConfig = Downloader.Configuration
