import ArgumentParser
import Foundation
import NIOCore
import WebImage
import WebImageServer

/// `webimage serve`: the imgproxy-compatible image service, configured by flags and by
/// `WEBIMAGE_*` environment variables (a flag wins over its variable).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve resized, re-encoded images at imgproxy-compatible signed URLs.",
        discussion: """
            Every setting also reads from the environment: imgproxy's IMGPROXY_ name with a \
            WEBIMAGE_ prefix (WEBIMAGE_KEY, WEBIMAGE_SALT, WEBIMAGE_BIND, ...); README has the table. \
            Without a key the server refuses to start unless --insecure is given.
            """
    )

    @Option(help: "host:port to listen on (WEBIMAGE_BIND; default 0.0.0.0:8080).")
    var bind: String?

    @Option(help: "Hex signing key; repeat for rotation (WEBIMAGE_KEY, comma-separated).")
    var key: [String] = []

    @Option(help: "Hex salt paired with each --key (WEBIMAGE_SALT, comma-separated).")
    var salt: [String] = []

    @Flag(help: "Serve unsigned URLs when no key is set (WEBIMAGE_INSECURE).")
    var insecure = false

    @Option(help: "Image jobs processed at once (WEBIMAGE_WORKERS; default: cores).")
    var workers: Int?

    @Option(help: "Jobs that may wait for a worker before 429s (WEBIMAGE_QUEUE_SIZE; default 8 per worker).")
    var queueSize: Int?

    @Option(help: "host:port for GET /metrics (WEBIMAGE_PROMETHEUS_BIND; default off).")
    var prometheusBind: String?

    @Option(help: "Result cache levels: memory, disk, memory,disk or off (WEBIMAGE_RESULT_CACHE; default memory).")
    var resultCache: String?

    @Option(help: "Source cache levels (WEBIMAGE_SOURCE_CACHE; default off).")
    var sourceCache: String?

    @Option(help: "Folder of the disk caches (WEBIMAGE_CACHE_DIR).")
    var cacheDir: String?

    @Option(help: "URL prefix sources must match, * a wildcard; repeat for more (WEBIMAGE_ALLOWED_SOURCES; default any).")
    var allowedSource: [String] = []

    @Option(help: "CIDR block sources may be fetched from even inside a blocked class; repeat for more (WEBIMAGE_ALLOWED_SOURCE_NETWORKS).")
    var allowedSourceNetwork: [String] = []

    @Flag(help: "Allow sources on this machine's loopback addresses (WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES).")
    var allowLoopbackSourceAddresses = false

    @Flag(help: "Allow sources on link-local addresses (WEBIMAGE_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES).")
    var allowLinkLocalSourceAddresses = false

    @Flag(help: "Allow sources on private networks (WEBIMAGE_ALLOW_PRIVATE_SOURCE_ADDRESSES).")
    var allowPrivateSourceAddresses = false

    @Option(help: "Redirects followed when fetching a source (WEBIMAGE_MAX_REDIRECTS; default 10).")
    var maxRedirects: Int?

    @Option(help: "Folder that local:///path and file:///path sources are read from (WEBIMAGE_LOCAL_FILESYSTEM_ROOT; default none: refused).")
    var localFilesystemRoot: String?

    @Flag(help: "Allow data: URLs as sources (WEBIMAGE_ALLOW_DATA_SOURCES).")
    var allowDataSources = false

    func run() async throws {
        // Swift concurrency on NIO's event loops: a request's handler then runs on the thread
        // that read it (ImageServer.adoptEventLoopsAsGlobalExecutor says why and when it is
        // safe). WEBIMAGE_EVENT_LOOP_EXECUTOR=0 keeps Swift's own pool.
        if ProcessInfo.processInfo.environment["WEBIMAGE_EVENT_LOOP_EXECUTOR"] != "0" {
            ImageServer.adoptEventLoopsAsGlobalExecutor()
        }
        // What the server listens on, for the error when it cannot.
        var listening = ""
        do {
            var settings = try ImageServer.Configuration(environment: ProcessInfo.processInfo.environment)
            // imgproxy fetches through the environment's proxy; this server connects to the
            // address it checked and pinned (a proxy would resolve the name again), so an
            // operator who relies on a filtering proxy must hear that it is not used.
            let proxies = Self.proxyVariables.filter { !(ProcessInfo.processInfo.environment[$0] ?? "").isEmpty }
            if !proxies.isEmpty {
                warn("webimage serve: WARNING: \(proxies.joined(separator: ", ")) not used: sources are fetched directly from the addresses the source policy checked")
            }
            if !settings.unrecognizedVariables.isEmpty {
                warn("webimage serve: WARNING: ignoring \(settings.unrecognizedVariables.joined(separator: ", ")): no such setting (README lists them)")
            }
            if let bind {
                // Checked here so that the error names the flag, not the variable.
                _ = try ImageServer.Configuration.hostAndPort(bind, setting: "--bind")
                settings.bind = bind
            }
            if !key.isEmpty { settings.keys = key }
            if !salt.isEmpty { settings.salts = salt }
            if insecure { settings.allowsUnsigned = true }
            // The ranges the environment's variables are held to: a flag is no way around
            // them (100,000 workers were 100,000 threads, and NIO trapped making them).
            if let workers { settings.workers = try Self.checked(workers, "--workers", in: 1...4_096) }
            if let queueSize { settings.queueSize = try Self.checked(queueSize, "--queue-size", in: 0...1_000_000) }
            if let prometheusBind {
                _ = try ImageServer.Configuration.hostAndPort(prometheusBind, setting: "--prometheus-bind")
                settings.prometheusBind = prometheusBind
            }
            if let resultCache { settings.resultCache = try .init(parsing: resultCache) }
            if let sourceCache { settings.sourceCache = try .init(parsing: sourceCache) }
            if let cacheDir { settings.cacheDirectory = URL(fileURLWithPath: cacheDir, isDirectory: true) }
            try applySourcePolicy(to: &settings)
            let server = try ImageServer(configuration: settings)
            if !server.verifiesSignatures {
                warn("webimage serve: WARNING: running without a signing key (--insecure): anyone can make this server fetch and process any URL")
            }
            let host = try settings.bindAddress().host
            listening = settings.bind + (settings.prometheusBind.map { " (metrics on \($0))" } ?? "")
            try await server.run { port, metricsPort in
                var line = "webimage serve: listening on \(host):\(port)"
                if let metricsPort { line += ", metrics on port \(metricsPort)" }
                // Unbuffered, so a supervisor or a test reading the pipe sees it at once.
                StandardStreams.output(line + "\n")
            }
        } catch let error as ImageServerError {
            warn("webimage serve: error: \(error.message)")
            throw ExitCode(64)
        } catch let error as IOError where [EADDRINUSE, EADDRNOTAVAIL, EACCES].contains(error.errnoCode) {
            // What a listener's bind fails with (a later I/O error is not this, and goes out
            // as it is). NIO's own text ("bind(descriptor:ptr:bytes:): Address already in
            // use) (errno: 98)") names a system call, not what could not be done.
            warn("webimage serve: error: cannot listen on \(listening): \(String(cString: strerror(error.errnoCode)))")
            throw ExitCode.failure
        }
    }
}

extension ServeCommand {
    /// The source-policy flags over the environment's settings.
    private func applySourcePolicy(to settings: inout ImageServer.Configuration) throws(ImageServerError) {
        if !allowedSource.isEmpty { settings.allowedSources = try allowedSource.map { text throws(ImageServerError) in try SourcePattern(parsing: text) } }
        if !allowedSourceNetwork.isEmpty {
            settings.sourceAddresses.allowedNetworks = try allowedSourceNetwork.map { text throws(ImageServerError) in try IPNetwork(parsing: text) }
        }
        if allowLoopbackSourceAddresses { settings.sourceAddresses.allowsLoopback = true }
        if allowLinkLocalSourceAddresses { settings.sourceAddresses.allowsLinkLocal = true }
        if allowPrivateSourceAddresses { settings.sourceAddresses.allowsPrivate = true }
        if let maxRedirects { settings.maxRedirects = try Self.checked(maxRedirects, "--max-redirects", in: 0...100) }
        if let localFilesystemRoot { settings.localFilesystemRoot = localFilesystemRoot }
        if allowDataSources { settings.allowsDataSources = true }
    }
}

extension ServeCommand {
    /// The proxy variables the command line's downloads follow and the server does not.
    static let proxyVariables = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// `value` when it is in `range`; otherwise the error (status 64) the matching
    /// environment variable gives.
    static func checked(_ value: Int, _ flag: String, in range: ClosedRange<Int>) throws(ImageServerError) -> Int {
        guard range.contains(value) else {
            throw .badOptions("\(flag) must be between \(range.lowerBound) and \(range.upperBound), not \(value)")
        }
        return value
    }
}

private func warn(_ line: String) {
    StandardStreams.error(line + "\n")
}
