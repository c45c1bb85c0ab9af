import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import WebImage

/// An imgproxy-compatible image service: a signed URL in, a resized, re-encoded, cached
/// image out.
///
/// One request flows: verify the signature, then parse the URL (no I/O) → result cache → a worker slot
/// (at most ``Configuration/workers`` jobs run, ``Configuration/effectiveQueueSize`` wait, the rest
/// get a 429) → the source, through a ``SourceFetching`` (by default a
/// ``GuardedSourceFetcher``: only allowed sources, only permitted addresses, over the
/// library's ``Downloader`` so concurrent requests of one source share one fetch) → decode at the
/// size needed, transform, encode on a worker thread → result cache → response with
/// `ETag`, `Cache-Control` and `Vary`. Every failure is a status with a one-line reason
/// (``ImageServerError``).
///
/// Run it on its own with ``run(onReady:)`` (what `webimage serve` does: graceful shutdown
/// on SIGTERM and SIGINT), or mount ``routes(mountedAt:context:)`` in a Hummingbird
/// application of your own and call ``shutdown()`` when it ends. Stop such an application
/// with a graceful shutdown (a signal its `ServiceGroup` listens for, or the group's
/// `triggerGracefulShutdown()`), not by cancelling the task that runs the group: a
/// connection still in NIO's accept stream when that task is cancelled makes NIO trap
/// ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#2813), which
/// ``run(onReady:)`` avoids by turning its own cancellation into a graceful shutdown
/// (`ImageServerStoppingTests`). Thread-safe.
///
/// ```swift
/// let server = try ImageServer(configuration: .init(environment: ProcessInfo.processInfo.environment))
/// try await server.run()
/// ```
public final class ImageServer: Sendable {
    /// The settings the server was created with.
    public let configuration: Configuration
    /// The metrics `/metrics` renders.
    public let metrics = ServerMetrics()

    let signer: URLSigner
    let processor: ImageProcessor
    let fetcher: any SourceFetching
    /// The downloader of the default fetcher, which the server created and so shuts down
    /// (its HTTP client must be shut down before it is released); `nil` for a fetcher
    /// the caller passed in, which stays the caller's.
    let ownedDownloader: Downloader?
    let resultCache: ByteCache
    let sourceCache: ByteCache
    let queue: JobQueue
    /// The jobs in flight by result key: concurrent requests for one result share one job
    /// (one queue place, one fetch, one decode), not only one download. Without it, a
    /// request arriving after the download finished but before the result was stored
    /// fetched the source again.
    let jobs = TaskCoalescer<String, ByteCache.Entry>()
    /// The source fetches in flight by URL: jobs for different results of one source (four
    /// widths of one image) share one fetch, whatever the fetcher. So the fetch is counted
    /// once in `webimage_source_bytes_total` and the download histogram, and stored once
    /// in the source cache; the default fetcher's downloader would share the download
    /// itself, but every job counted and stored it again.
    let sourceFetches = TaskCoalescer<String, Data>()
    let workerThreads: NIOThreadPool
    let logger: Logger

    /// Creates a server; nothing listens until ``run(onReady:)``.
    /// - Parameters:
    ///   - fetcher: where sources come from; default a ``GuardedSourceFetcher`` with the
    ///     configuration's source policy, byte limit and download time-out.
    /// - Throws: ``ImageServerError`` for malformed keys, or no key without
    ///   ``Configuration/allowsUnsigned``.
    public init(
        configuration: Configuration,
        fetcher: (any SourceFetching)? = nil,
        logger: Logger = Logger(label: "WebImageServer")
    ) throws(ImageServerError) {
        signer = try URLSigner(keys: configuration.keys, salts: configuration.salts, signatureSize: configuration.signatureSize)
        guard !signer.pairs.isEmpty || configuration.allowsUnsigned else {
            throw .badOptions("no signing key: set WEBIMAGE_KEY and WEBIMAGE_SALT, or allow unsigned URLs with --insecure")
        }
        self.configuration = configuration
        var processing = ImageProcessor.Configuration()
        processing.quality = configuration.quality
        processing.formatQuality = configuration.formatQuality
        processing.preferredFormats = configuration.preferredFormats
        processing.maxSourcePixels = Int(configuration.maxSourceResolution * 1_000_000)
        processing.maxAnimationFrames = configuration.maxAnimationFrames
        processing.maxResultDimension = configuration.maxResultDimension
        // SVG and PDF only when told: their libraries have no bound on what a document
        // makes them allocate.
        if configuration.allowsSVG || configuration.allowsPDF {
            processing.coder = CodersManager(
                coders: (configuration.allowsPDF ? [PDFCoder()] : []) + (configuration.allowsSVG ? [SVGCoder()] : []) + CodersManager.builtInCoders)
        }
        processor = ImageProcessor(configuration: processing)
        if let fetcher {
            self.fetcher = fetcher
            ownedDownloader = nil
        } else {
            let fetcher = GuardedSourceFetcher(
                allowedSources: configuration.allowedSources,
                addressPolicy: configuration.sourceAddresses,
                maxRedirects: configuration.maxRedirects,
                maxBytes: configuration.maxSourceFileSize,
                timeout: configuration.downloadTimeout,
                userAgent: configuration.userAgent,
                localFiles: try configuration.localFilesystemRoot.map { root throws(ImageServerError) in try LocalFileSource(root: root) },
                allowsDataSources: configuration.allowsDataSources,
                maxConcurrentDownloads: Self.sourceDownloadLimit(workers: configuration.workers)
            )
            self.fetcher = fetcher
            ownedDownloader = fetcher.downloader
        }
        for (levels, folder) in [(configuration.resultCache, "results"), (configuration.sourceCache, "sources")] where levels.contains(.disk) {
            try Self.checkCacheFolder(configuration.cacheDirectory.appendingPathComponent(folder, isDirectory: true))
        }
        var disk = DiskCache.Configuration()
        disk.maxSize = configuration.diskCacheSize
        let age = configuration.diskCacheMaxAge.components
        disk.maxAge = Double(age.seconds) + Double(age.attoseconds) / 1e18
        disk.cleanupInterval = ByteCache.diskCleanupInterval
        resultCache = ByteCache(
            levels: configuration.resultCache,
            directory: configuration.cacheDirectory.appendingPathComponent("results", isDirectory: true),
            memoryLimit: configuration.memoryCacheSize,
            disk: disk,
            tagsEntries: configuration.useETag,
            diskNamespace: configuration.resultCacheNamespace
        )
        // A source may be as large as the fetch limit allows; the disk level must take it
        // back, or a source over its default entry size would be fetched and written again
        // on every request.
        var sourceDisk = disk
        sourceDisk.maxEntrySize = max(disk.maxEntrySize, configuration.maxSourceFileSize)
        sourceCache = ByteCache(
            levels: configuration.sourceCache,
            directory: configuration.cacheDirectory.appendingPathComponent("sources", isDirectory: true),
            memoryLimit: configuration.memoryCacheSize,
            disk: sourceDisk,
            diskNamespace: configuration.sourceCacheNamespace
        )
        queue = JobQueue(workers: configuration.workers, queueSize: configuration.effectiveQueueSize)
        // Decoding and encoding block a thread for milliseconds at a time: they get threads
        // of their own, one per worker slot, so Swift's cooperative pool (and with it
        // `/health`, `/metrics` and the network) stays free while every worker is busy.
        workerThreads = NIOThreadPool(numberOfThreads: max(1, configuration.workers))
        workerThreads.start()
        self.logger = logger
    }

    /// Makes `folder` (a disk level's) if it is missing, and checks the server may write in
    /// it. A folder it cannot use used to be found out by the first store, which fails
    /// quietly by design (a cache write never fails a response): the server ran with no
    /// disk level, and nothing said so.
    private static func checkCacheFolder(_ folder: URL) throws(ImageServerError) {
        // Each folder on the path made in turn, so the error is the system's own for the
        // one that failed (Foundation's is "error 512").
        var path = ""
        for component in folder.path.split(separator: "/") {
            path += "/" + component
            guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
                throw .badOptions("the cache folder (WEBIMAGE_CACHE_DIR, --cache-dir): cannot make \(path): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(folder.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .badOptions("the cache folder (WEBIMAGE_CACHE_DIR, --cache-dir): \(folder.path) is not a folder")
        }
        guard access(folder.path, W_OK | X_OK) == 0 else {
            throw .badOptions("the cache folder (WEBIMAGE_CACHE_DIR, --cache-dir): cannot write in \(folder.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Makes NIO's event loops the threads that run Swift concurrency's tasks, for the
    /// whole process; returns whether it took.
    ///
    /// Without it, Swift's cooperative pool and NIO's event loops are two sets of threads,
    /// and every request hops from the event loop that read it to the pool that runs its
    /// handler and back: two thread wake-ups, which cost more than answering a cache hit.
    /// On the event loops the handler runs where the bytes arrived. `webimage serve` calls
    /// this at start-up; an application that embeds the server may too, on two conditions
    /// that make it safe: call it once, before any other work, and only in a process whose
    /// async code never blocks a thread (the server's own image work runs on its worker
    /// threads, its file I/O on NIO's thread pool, so it qualifies).
    @discardableResult
    public static func adoptEventLoopsAsGlobalExecutor() -> Bool {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// Whether URLs are checked against a signature.
    public var verifiesSignatures: Bool { !signer.pairs.isEmpty }

    /// The image routes, `GET`/`HEAD /health` and `OPTIONS`, to mount in a Hummingbird router:
    /// `router.addRoutes(server.routes(mountedAt: "/images"), atPath: "/images")`.
    /// `prefix` is the path the collection is mounted at (stripped before parsing, and not
    /// signed, as imgproxy's `PATH_PREFIX`).
    public func routes<Context: RequestContext>(mountedAt prefix: String = "", context: Context.Type = Context.self) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        // HEAD too: a load balancer's check may use it (the path's own route matches
        // first, so without one `HEAD /health` was a 404).
        routes.get("health") { _, _ in await self.healthResponse() }
        routes.head("health") { _, _ in await self.healthResponse().createHeadResponse() }
        routes.get("**") { request, context in
            await self.respond(to: request, prefix: prefix, connection: context as? ImageRequestContext)
        }
        routes.head("**") { request, context in
            await self.respond(to: request, prefix: prefix, connection: context as? ImageRequestContext)
        }
        // A browser's CORS preflight, answered as imgproxy answers every OPTIONS: 200, with
        // the CORS headers when `WEBIMAGE_ALLOW_ORIGIN` is set.
        routes.on("**", method: .options) { _, _ in
            self.withCORS(Response(status: .ok, headers: [.contentLength: "0"]))
        }
        return routes
    }

    /// Listens on ``Configuration/bind`` (and ``Configuration/prometheusBind`` for
    /// `/metrics`) until SIGTERM, SIGINT or the task's cancellation; then stops accepting,
    /// lets the requests in flight finish within ``Configuration/gracefulStopTimeout``,
    /// and returns. A part of the server that has not stopped 10 s after that (a task that
    /// ignores cancellation) is logged at error level and left running: `run` returns
    /// regardless. `onReady` gets the bound ports (useful with port 0).
    public func run(onReady: @escaping @Sendable (_ port: Int, _ metricsPort: Int?) async -> Void = { _, _ in }) async throws {
        let address = try configuration.bindAddress()
        let metricsAddress = try configuration.prometheusAddress()
        let router = Router(context: ImageRequestContext.self)
        router.addRoutes(routes())
        let ports = PortsReady(expected: metricsAddress == nil ? 1 : 2, onReady: onReady)
        // With keep-alive off, the time a connection has to send its one request.
        let idleTimeout = configuration.keepsAlive ? configuration.keepAliveTimeout : Configuration.requestReadTimeout
        var services: [any Service] = [
            Application(
                router: router,
                // The idle timer first, so that it sees the requests answered in the pipeline
                // (Hummingbird's own `idleTimeout` would not).
                server: .http1(configuration: .init(additionalChannelHandlers: [
                    IdleConnectionHandler(
                        timeout: TimeAmount(idleTimeout),
                        writeTimeout: TimeAmount(self.configuration.writeResponseTimeout),
                        keepsAlive: self.configuration.keepsAlive
                    ),
                    ImmediateResponseHandler(server: self),
                    ConnectionWatch.Handler(),
                ])),
                configuration: ApplicationConfiguration(
                    address: .hostname(address.host, port: address.port),
                    serverName: "webimage",
                    availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxClients)
                ),
                onServerRunning: { await ports.report(main: $0.localAddress?.port ?? address.port) },
                logger: logger
            ),
        ]
        if let metricsAddress {
            let metricsRouter = Router()
            metricsRouter.get("metrics") { _, _ in
                Response(
                    status: .ok,
                    headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: self.metrics.render(queue: self.queue)))
                )
            }
            services.append(Application(
                router: metricsRouter,
                server: .http1(configuration: .init(idleTimeout: TimeAmount(idleTimeout))),
                configuration: ApplicationConfiguration(
                    address: .hostname(metricsAddress.host, port: metricsAddress.port),
                    // A scraper needs a connection or two; a flood of them must not hold
                    // file descriptors the image port needs.
                    availableConnectionsDelegate: MaximumAvailableConnections(64)
                ),
                onServerRunning: { await ports.report(metrics: $0.localAddress?.port ?? metricsAddress.port) },
                logger: logger
            ))
        }
        // Last, so that it hears of the shutdown first (services stop in reverse order).
        let stopWatch = StopWatch()
        var serviceConfigurations = services.enumerated().map { index, service in
            ServiceGroupConfiguration.ServiceConfiguration(service: stopWatch.track(service, named: index == 0 ? "image server" : "metrics server"))
        }
        serviceConfigurations.append(.init(service: stopWatch, successTerminationBehavior: .ignore))
        var groupConfiguration = ServiceGroupConfiguration(
            services: serviceConfigurations,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        groupConfiguration.maximumGracefulShutdownDuration = configuration.gracefulStopTimeout
        let group = ServiceGroup(configuration: groupConfiguration)
        // The group runs in a task of its own, so that cancelling this one shuts it down
        // gracefully, as SIGTERM does, instead of cancelling its services at once (which
        // drops requests in flight, and connections accepted but not yet served).
        let running = Task { try await group.run() }
        do {
            let stuck = try await withTaskCancellationHandler {
                try await stopWatch.awaitEnd(of: running, gracePeriod: configuration.gracefulStopTimeout)
            } onCancel: {
                Task { await group.triggerGracefulShutdown() }
            }
            if let stuck {
                logger.error("still running after the graceful stop and the cancellation that followed it; leaving them", metadata: [
                    "services": "\(stuck.isEmpty ? "(none had started)" : stuck.joined(separator: ", "))",
                ])
            }
        } catch {
            try? await shutdownUncancelled(within: remainingStopTime(since: stopWatch.gracefulStopBegan))
            throw error
        }
        try await shutdownUncancelled(within: remainingStopTime(since: stopWatch.gracefulStopBegan))
    }

    /// ``shutdown(within:)`` in a task of its own. When `run` ends because its task was
    /// cancelled, that cancellation would reach the deadline race at once: the worker
    /// threads' stop was never waited for, and every stop logged jobs "still running".
    /// A cancelled caller stops as SIGTERM does, so the stop must not see it.
    private func shutdownUncancelled(within limit: Duration) async throws {
        try await Task { try await self.shutdown(within: limit) }.value
    }

    /// Stops the worker threads and the default fetcher's downloader. Call once, after the
    /// last request (``run(onReady:)`` does it itself). Waits for the jobs still running.
    public func shutdown() async throws {
        try await workerThreads.shutdownGracefully()
        try await ownedDownloader?.shutdown()
    }

    /// What is left of ``Configuration/gracefulStopTimeout`` since the shutdown began (all
    /// of it when that is unknown), and never less than a second, for the worker threads.
    private func remainingStopTime(since began: ContinuousClock.Instant?) -> Duration {
        let spent = began.map { ContinuousClock.now - $0 } ?? .zero
        return max(.seconds(1), configuration.gracefulStopTimeout - spent)
    }

    /// ``shutdown()``, waiting at most `limit` for the worker threads: a job still running
    /// there (an encode its client stopped waiting for) cannot be interrupted, and the
    /// process must exit within the graceful-stop time, as the README promises (systemd
    /// kills it soon after). Such jobs end with the process.
    private func shutdown(within limit: Duration) async throws {
        do {
            try await withDeadline(limit, timeoutError: .processingTimedOut) { try await self.workerThreads.shutdownGracefully() }
        } catch {
            logger.warning("worker jobs still running at the end of the graceful stop; leaving them")
        }
        try await ownedDownloader?.shutdown()
    }

    /// The source downloader's concurrency for `workers`: at least every worker's fetch.
    /// A download waiting inside the downloader spends its download time-out there, so
    /// with more workers than its limit the excess failed as the origin's time-outs.
    static func sourceDownloadLimit(workers: Int) -> Int {
        max(DownloaderSourceFetcher.maxConcurrentDownloads, workers)
    }

    // MARK: Health

    /// 200 when a small decode → resize → encode round trip works; else 503. Liveness only,
    /// as imgproxy's: it used to fail for a time-out after any request gave up in the
    /// queue, and under a load spread over every node that took them all out of a
    /// balancer's rotation at once (memory hits included, which cost microseconds and were
    /// still served) and had probes restart them, their caches lost. Load has its own
    /// signals: 429 at a full queue, 503 per request, `webimage_errors_total` and
    /// `webimage_queue_length`.
    func healthResponse() async -> Response {
        var problem: String?
        if let failure = Self.roundTripFailure(processor) {
            problem = "the image round trip failed: \(failure)"
        }
        let status: HTTPResponse.Status = problem == nil ? .ok : .serviceUnavailable
        return Response(
            status: status,
            headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: (problem ?? "OK") + "\n"))
        )
    }

    /// Encodes an 8×8 PNG, then decodes, resizes and encodes it as JPEG; returns what
    /// failed, or `nil`. Microseconds of work, so it runs inline.
    static func roundTripFailure(_ processor: ImageProcessor) -> String? {
        do {
            let pixels = PixelBuffer(width: 8, height: 8, filling: RGBAColor(red: 200, green: 40, blue: 40))
            let png = try processor.configuration.coder.encode(Image(pixels: pixels), as: .png, options: ImageCoderOptions())
            var options = ProcessingOptions()
            options.width = 4
            options.height = 4
            let output = try processor.process(png, options: options, format: .jpeg)
            return output.data.isEmpty ? "empty result" : nil
        } catch {
            return String(describing: error)
        }
    }

}

/// Calls `onReady` once every listener has reported its port.
private actor PortsReady {
    private let expected: Int
    private let onReady: @Sendable (Int, Int?) async -> Void
    private var main: Int?
    private var metrics: Int?

    init(expected: Int, onReady: @escaping @Sendable (Int, Int?) async -> Void) {
        self.expected = expected
        self.onReady = onReady
    }

    func report(main port: Int) async {
        main = port
        await fireIfComplete()
    }

    func report(metrics port: Int) async {
        metrics = port
        await fireIfComplete()
    }

    private func fireIfComplete() async {
        guard let main, expected == 1 || metrics != nil else { return }
        await onReady(main, metrics)
    }
}

extension NIOThreadPool {
    /// Runs `body` on one of the pool's threads and returns its result: how the server
    /// hops off the event loops and the cooperative pool (disk-cache reads and writes, name
    /// look-ups, decoding and encoding).
    ///
    /// The future form of `runIfActive`, not the `async` one: in swift-nio 2.101 the `async`
    /// form records the ID of every work item whose task is cancelled in a set that only
    /// taking the item off the queue empties, so an item cancelled after it started (the
    /// server abandons jobs whose clients left, by design) left its ID there for the life of
    /// the process. A task cancelled while its item waits here still waits for it; the
    /// server never queues more items on its worker pool than it has threads.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any(), body).get()
    }
}

