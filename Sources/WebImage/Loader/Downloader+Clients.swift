import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

/// The HTTP clients a downloader sends its requests with.
///
/// AsyncHTTPClient fixes the certificate policy, the proxy and a DNS override per client,
/// so the downloader keeps one shared client per route (``SharedClientKey``: a proxy or
/// none, certificates checked or not), made on first use, and the clients of pinned
/// downloads in ``PinnedClients``. Every client has the configuration's TLS trust, client
/// identity, HTTP version and connection limit.
extension Downloader {
    /// What makes two unpinned downloads able to share a client: requests to hosts the
    /// proxy settings exempt go on a client without a proxy, the others on the client of
    /// their scheme's proxy.
    struct SharedClientKey: Hashable {
        var proxy: Proxy?
        var allowsInvalidCertificates: Bool
    }

    /// The downloader's clients: one shared client per route, made on first use, and the
    /// clients of pinned downloads. A plain value, kept under its own lock
    /// (``Downloader/clients``).
    struct Clients {
        var shared: [SharedClientKey: HTTPClient] = [:]
        var pinned = PinnedClients<HTTPClient>()
        /// Set by ``Downloader/shutdown()``: no client is handed out or made after.
        private(set) var isClosed = false

        /// Hands out no client from now on; returns the shared ones, to shut down.
        mutating func close() -> [HTTPClient] {
            isClosed = true
            defer { shared.removeAll() }
            return Array(shared.values)
        }
    }

    /// The client that sends `operation`'s request to `url`: the shared client of its
    /// route or, for a pinned download, the client kept for its host and pin (made on first
    /// use; see ``PinnedClients``). Fails with `cancelled` when every caller of the
    /// operation left (as a shutdown makes them), with `invalidDownloadOperation` once the
    /// downloader is shut down, and for a pin that cannot hold.
    func transferClient(for operation: DownloadOperation, url: URL) -> Result<HTTPClient, WebImageError> {
        guard !operation.isRequestStopped else { return .failure(.cancelled) }
        let insecure = operation.key.allowsInvalidCertificates
        guard let address = operation.requestOptions.pinnedAddress else {
            return sharedClient(SharedClientKey(proxy: config.proxy.proxy(for: url), allowsInvalidCertificates: insecure))
        }
        let host: String
        do {
            host = try Self.pinnedHost(of: url, address: address)
        } catch {
            return .failure(error)
        }
        let key = PinnedClients<HTTPClient>.Key(host: host, address: address, allowsInvalidCertificates: insecure)
        let (isClosed, kept) = clients.withLock { clients -> (Bool, HTTPClient?) in
            clients.isClosed ? (true, nil) : (false, clients.pinned.acquire(key, for: operation))
        }
        guard !isClosed else { return .failure(.invalidDownloadOperation) }
        if let kept { return .success(kept) }
        // Made outside the lock; a transfer that made one for the same pin meanwhile wins.
        let made = makeClient(allowingInvalidCertificates: insecure, proxy: nil, dnsOverride: [host: address])
        let (chosen, surplus): (HTTPClient?, HTTPClient?) = clients.withLock { clients in
            guard !clients.isClosed else { return (nil, made) }
            let stored = clients.pinned.insert(made, key, for: operation)
            return (stored.client, stored.surplus)
        }
        surplus?.shutdown { _ in }
        return chosen.map { .success($0) } ?? .failure(.invalidDownloadOperation)
    }

    /// The host name of `url` that a client pinned to `address` overrides (AsyncHTTPClient's
    /// DNS override: the connection goes to the address, while the `Host` header, TLS server
    /// name and certificate check keep the name).
    /// - Throws: ``WebImageError/invalidURL(_:)`` when `address` is not an IP address (the
    ///   client would resolve it), or `url`'s host is another IP address (a host written as
    ///   an address is connected to as written, never overridden).
    private static func pinnedHost(of url: URL, address: String) throws(WebImageError) -> String {
        guard let pin = try? SocketAddress(ipAddress: address, port: 0) else {
            throw .invalidURL("the pinned address \"\(address)\" is not an IP address")
        }
        var host = url.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let literal = try? SocketAddress(ipAddress: host, port: 0), literal != pin {
            throw .invalidURL("\(redacted(url)) names another address than the pinned \(address)")
        }
        return host
    }

    /// `operation` no longer uses its pinned client (if it had one); idle clients beyond the
    /// kept number are shut down.
    func releasePinnedClient(of operation: DownloadOperation) {
        guard operation.requestOptions.pinnedAddress != nil else { return }
        let evicted = clients.withLock { $0.pinned.release(operation) }
        for client in evicted { client.shutdown { _ in } }
    }

    /// The shared client of `key`, created on first use; fails once the downloader is
    /// shut down.
    private func sharedClient(_ key: SharedClientKey) -> Result<HTTPClient, WebImageError> {
        clients.withLock { clients in
            if clients.isClosed { return .failure(.invalidDownloadOperation) }
            if let client = clients.shared[key] { return .success(client) }
            let client = makeClient(allowingInvalidCertificates: key.allowsInvalidCertificates, proxy: key.proxy)
            clients.shared[key] = client
            return .success(client)
        }
    }

    /// The HTTP/1.1 connections a client may keep open to one host:
    /// ``Configuration/maxConnectionsPerHost``, or by default as many as downloads may run
    /// at once, at least AsyncHTTPClient's 8.
    static func connectionsPerHost(_ config: Configuration) -> Int {
        max(1, config.maxConnectionsPerHost ?? max(8, config.maxConcurrentDownloads))
    }

    /// A client with the downloader's settings; with a `dnsOverride` (a pinned download) it
    /// follows no redirect, so every hop goes back to the caller to check.
    func makeClient(allowingInvalidCertificates insecure: Bool, proxy: Proxy?, dnsOverride: [String: String] = [:]) -> HTTPClient {
        let timeout = config.timeout.timeAmount
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = insecure ? .none : .fullVerification
        config.trustRoots.apply(to: &tls)
        config.clientIdentity?.apply(to: &tls)
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: config.maximumRedirects > 0 && dnsOverride.isEmpty
                ? .follow(max: config.maximumRedirects, allowCycles: false) : .disallow,
            // No read time-out: each ResponseReader's watchdog enforces the idle limit.
            timeout: HTTPClient.Configuration.Timeout(connect: timeout, read: nil),
            proxy: proxy?.clientProxy,
            decompression: .disabled
        )
        configuration.httpVersion = config.allowsHTTP2 ? .automatic : .http1Only
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.connectionsPerHost(config)
        // A refused connection fails the download at once, as URLSession's does: by default
        // AsyncHTTPClient retries it until the connect time-out, so a dead origin held each
        // caller (and an image server's worker) for the whole time-out before failing.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.dnsOverride = dnsOverride
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}
