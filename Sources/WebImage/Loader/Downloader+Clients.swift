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

    /// The client that sends `operation`'s request to `url`: the shared client of its
    /// route or, for a pinned download, the client kept for its host and pin (made on first
    /// use; see ``PinnedClients``). Fails with `cancelled` when every caller of the
    /// operation left (as a shutdown makes them), with `invalidDownloadOperation` once the
    /// downloader is shut down, and for a pin that cannot hold. The checks share the lock
    /// the client is looked up under: every transfer begins here.
    func transferClient(for operation: DownloadOperation, url: URL) -> Result<HTTPClient, WebImageError> {
        let insecure = operation.key.allowsInvalidCertificates
        guard let address = operation.requestOptions.pinnedAddress else {
            return sharedClient(SharedClientKey(proxy: config.proxy.proxy(for: url), allowsInvalidCertificates: insecure), for: operation)
        }
        let host: String
        do {
            host = try Self.pinnedHost(of: url, address: address)
        } catch {
            return .failure(error)
        }
        let key = PinnedClients<HTTPClient>.Key(host: host, address: address, allowsInvalidCertificates: insecure)
        let kept = state.withLock { state -> Result<HTTPClient?, WebImageError> in
            if state.scheduler.isStopping(operation) { return .failure(.cancelled) }
            if state.scheduler.isShutDown { return .failure(.invalidDownloadOperation) }
            return .success(state.pinnedClients.acquire(key, for: operation))
        }
        switch kept {
        case .failure(let error): return .failure(error)
        case .success(let client?): return .success(client)
        case .success(nil): break
        }
        // Made outside the lock; a transfer that made one for the same pin meanwhile wins.
        let made = makeClient(allowingInvalidCertificates: insecure, proxy: nil, dnsOverride: [host: address])
        let (chosen, surplus): (HTTPClient?, HTTPClient?) = state.withLock { state in
            guard !state.scheduler.isShutDown else { return (nil, made) }
            let stored = state.pinnedClients.insert(made, key, for: operation)
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
        let evicted = state.withLock { $0.pinnedClients.release(operation) }
        for client in evicted { client.shutdown { _ in } }
    }

    /// The shared client of `key` for `operation`'s transfer, created on first use (see
    /// ``transferClient(for:url:)`` for the failures).
    private func sharedClient(_ key: SharedClientKey, for operation: DownloadOperation) -> Result<HTTPClient, WebImageError> {
        state.withLock { state in
            if state.scheduler.isStopping(operation) { return .failure(.cancelled) }
            if state.scheduler.isShutDown { return .failure(.invalidDownloadOperation) }
            if let client = state.sharedClients[key] { return .success(client) }
            let client = makeClient(allowingInvalidCertificates: key.allowsInvalidCertificates, proxy: key.proxy)
            state.sharedClients[key] = client
            return .success(client)
        }
    }

    /// The HTTP/1.1 connections a client may keep open to one host:
    /// ``Configuration/maxConnectionsPerHost``, or by default as many as downloads may run
    /// at once, at least AsyncHTTPClient's 8.
    var connectionsPerHost: Int {
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
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        // A refused connection fails the download at once, as URLSession's does: by default
        // AsyncHTTPClient retries it until the connect time-out, so a dead origin held each
        // caller (and an image server's worker) for the whole time-out before failing.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.dnsOverride = dnsOverride
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}
