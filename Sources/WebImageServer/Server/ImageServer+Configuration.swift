import Foundation
import WebImage

extension ImageServer {
    /// Everything `webimage serve` can be told, with imgproxy's defaults where imgproxy has
    /// the same setting, except where a setting's documentation says otherwise (the
    /// workers, the queue, the source and result limits, ETags).
    ///
    /// Each setting also reads from the environment: imgproxy's `IMGPROXY_` name with a
    /// `WEBIMAGE_` prefix where the meaning is imgproxy's (``init(environment:)`` names them),
    /// so an imgproxy deployment's settings carry over by renaming.
    ///
    /// ```swift
    /// var configuration = ImageServer.Configuration()
    /// configuration.keys = ["736563726574"]; configuration.salts = ["68656C6C6F"]
    /// ```
    public struct Configuration: Sendable {
        /// Which levels of a cache are on (`WEBIMAGE_RESULT_CACHE`, `WEBIMAGE_SOURCE_CACHE`).
        public struct CacheLevels: OptionSet, Sendable, Hashable {
            public let rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }
            /// Bytes kept in memory (LRU, bounded by a cost limit).
            public static let memory = CacheLevels(rawValue: 1)
            /// Bytes kept in files under ``Configuration/cacheDirectory``.
            public static let disk = CacheLevels(rawValue: 2)

            /// Parses `memory`, `disk`, `memory,disk` or `off`.
            public init(parsing text: String) throws(ImageServerError) {
                self = []
                for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
                    switch part {
                    case "memory": insert(.memory)
                    case "disk": insert(.disk)
                    case "off", "none", "": break
                    default: throw .badOptions("cache levels are memory, disk, memory,disk or off; not \"\(part)\"")
                    }
                }
            }
        }

        /// `WEBIMAGE_BIND`: `host:port` to listen on; default `0.0.0.0:8080`, as imgproxy.
        public var bind = "0.0.0.0:8080"
        /// `WEBIMAGE_KEY`: hex-encoded signing keys (comma-separated in the environment, for
        /// rotation); default none.
        public var keys: [String] = []
        /// `WEBIMAGE_SALT`: hex-encoded salts, paired with ``keys`` in order; default none.
        public var salts: [String] = []
        /// `WEBIMAGE_SIGNATURE_SIZE`: bytes of the digest a signature carries; default 32.
        public var signatureSize = 32
        /// Serve unsigned URLs when no key is set (`--insecure`; `WEBIMAGE_INSECURE=1`).
        /// Default `false`: without keys the server refuses to start.
        public var allowsUnsigned = false
        /// `WEBIMAGE_SECRET`: when set, requests must carry `Authorization: Bearer SECRET`.
        public var secret: String?
        /// `WEBIMAGE_ALLOW_PDF`: render PDF sources; default off. poppler decodes every
        /// image a page draws at its full size, with no limit (see ``PDFCoder``): turn it on
        /// only when the sources are trusted (``allowedSources`` naming your own storage).
        public var allowsPDF = false
        /// `WEBIMAGE_ALLOW_SVG`: render SVG sources; default off. librsvg has no bound on
        /// what a document makes it allocate (see ``CodersManager/builtInCoders``): turn it
        /// on only when the sources are trusted.
        public var allowsSVG = false
        /// `WEBIMAGE_ALLOW_ORIGIN`: when set, image responses carry
        /// `Access-Control-Allow-Origin` with this value and `Access-Control-Allow-Methods:
        /// GET, OPTIONS` (imgproxy's `IMGPROXY_ALLOW_ORIGIN`); unset by default (no CORS
        /// headers). `OPTIONS` is answered 200 either way, as imgproxy does.
        public var allowOrigin: String?
        /// `WEBIMAGE_WORKERS`: image jobs processed at once; default the number of cores.
        public var workers = ProcessInfo.processInfo.activeProcessorCount
        /// `WEBIMAGE_QUEUE_SIZE`: jobs that may wait for a worker; more get a 429 at once.
        /// Default `nil`: 8 per worker (imgproxy's default queue is unbounded). A request
        /// that would wait behind more than a few jobs per worker is better refused at once,
        /// so that its client or the load balancer can try again or elsewhere, than held
        /// for seconds on a node that is already saturated. 0 means no queue: a job that
        /// finds every worker busy is refused. imgproxy's `IMGPROXY_REQUESTS_QUEUE_SIZE`
        /// is read too, as `WEBIMAGE_REQUESTS_QUEUE_SIZE` with imgproxy's meaning (0 is no
        /// limit), when `WEBIMAGE_QUEUE_SIZE` is unset.
        public var queueSize: Int?
        /// The queue length in effect: ``queueSize``, or 8 per worker.
        public var effectiveQueueSize: Int { queueSize ?? 8 * max(1, workers) }
        /// `WEBIMAGE_MAX_CLIENTS`: open connections accepted at once; default 2,048 (imgproxy's).
        public var maxClients = 2_048
        /// `WEBIMAGE_TIMEOUT`: seconds a request may take, queue time included, before a
        /// 503; default 10.
        public var timeout: Duration = .seconds(10)
        /// `WEBIMAGE_DOWNLOAD_TIMEOUT`: seconds the source download may take before a 504;
        /// default 5.
        public var downloadTimeout: Duration = .seconds(5)
        /// `WEBIMAGE_KEEP_ALIVE_TIMEOUT`: seconds a connection may stay open without a whole
        /// request part arriving (imgproxy's `IMGPROXY_KEEP_ALIVE_TIMEOUT`); default 10. It
        /// closes idle keep-alive connections and clients that send a request head a byte
        /// at a time: without it, ``maxClients`` such connections would lock every other
        /// client out for good. The time a request is being answered does not count.
        ///
        /// 0 turns keep-alive off, as in imgproxy: each connection answers one request
        /// (`Connection: close`) and is closed once its response is out. The request must
        /// still arrive within ``requestReadTimeout``.
        public var keepAliveTimeout: Duration = .seconds(10)
        /// The time a request has to arrive whole when keep-alive is off (imgproxy's
        /// `IMGPROXY_READ_REQUEST_TIMEOUT` default): a connection that never sent a whole
        /// request would otherwise hold a client slot for good.
        public static let requestReadTimeout: Duration = .seconds(10)
        /// Whether a connection stays open for more requests (``keepAliveTimeout`` is not 0).
        public var keepsAlive: Bool { keepAliveTimeout > .zero }
        /// `WEBIMAGE_WRITE_RESPONSE_TIMEOUT`: seconds a response may take to be written to
        /// the client, from its first byte to its last (imgproxy's
        /// `IMGPROXY_WRITE_RESPONSE_TIMEOUT`); default 10. A client that asks and never
        /// reads is then closed; without it, its connection stayed open for good.
        public var writeResponseTimeout: Duration = .seconds(10)
        /// `WEBIMAGE_TTL`: `Cache-Control: max-age` of results, in seconds; default one year.
        public var ttl = 31_536_000
        /// `WEBIMAGE_MAX_SRC_RESOLUTION`: megapixels a source may have (all frames
        /// together); default 50.
        public var maxSourceResolution = 50.0
        /// `WEBIMAGE_MAX_SRC_FILE_SIZE`: bytes a source may have; default 100 MiB.
        public var maxSourceFileSize = 100 * 1024 * 1024
        /// `WEBIMAGE_MAX_ANIMATION_FRAMES`: frames of an animated source decoded and kept; a
        /// longer animation is cut to its first ones, as imgproxy cuts it. Default 1,000.
        public var maxAnimationFrames = 1_000
        /// `WEBIMAGE_MAX_RESULT_DIMENSION`: the largest width or height of a result (a larger
        /// one is scaled down to it); default 8,192. All frames of an animated result
        /// together may have at most its square in pixels.
        public var maxResultDimension = 8_192
        /// `WEBIMAGE_QUALITY`: quality when the URL gives none; default 80.
        public var quality = 80
        /// `WEBIMAGE_FORMAT_QUALITY`: quality per format when the URL gives none, before
        /// ``quality`` (`webp=79,avif=63`); default imgproxy's: WebP 79, AVIF 63, JPEG XL 77.
        /// The variable's pairs replace the defaults of the formats it names.
        public var formatQuality: [ImageFormat: Int] = ImageProcessor.Configuration().formatQuality
        /// `WEBIMAGE_PREFERRED_FORMATS`: the formats a result is made in when neither the URL
        /// nor the negotiation picks one, best first (`jpeg,png,gif`, imgproxy's default):
        /// the source's when it is one of them, else the first that can hold the result.
        public var preferredFormats: [ImageFormat] = ImageProcessor.Configuration().preferredFormats
        /// `WEBIMAGE_AUTO_WEBP`: serve WebP to clients whose `Accept` has `image/webp`, when
        /// the URL names no format; default `false`.
        public var autoWebP = false
        /// `WEBIMAGE_AUTO_AVIF`: the same for AVIF (preferred over WebP); default `false`.
        public var autoAVIF = false
        /// `WEBIMAGE_USE_ETAG`: send a strong `ETag` and answer `If-None-Match` with 304;
        /// default `false`.
        public var useETag = false
        /// `WEBIMAGE_PROMETHEUS_BIND`: `host:port` of the `/metrics` listener; default none.
        public var prometheusBind: String?
        /// `WEBIMAGE_RESULT_CACHE`: where results are kept; default memory.
        public var resultCache: CacheLevels = .memory
        /// `WEBIMAGE_SOURCE_CACHE`: where downloaded sources are kept; default off.
        public var sourceCache: CacheLevels = []
        /// `WEBIMAGE_CACHE_DIR`: the disk caches' folder; default
        /// `$XDG_CACHE_HOME/swift-web-image/serve`.
        public var cacheDirectory = DiskCache.defaultBaseDirectory.appendingPathComponent("serve", isDirectory: true)
        /// `WEBIMAGE_CACHE_MEMORY_SIZE`: bytes each memory cache may hold; default 256 MiB.
        public var memoryCacheSize = 256 * 1024 * 1024
        /// `WEBIMAGE_CACHE_DISK_SIZE`: bytes of disk space (allocated blocks) each disk cache
        /// may take; default 1 GiB, 0 for no limit. Checked when the server starts and every
        /// ten minutes: a level over it loses its oldest entries until it is under half
        /// (``DiskCache/removeExpiredData()``).
        public var diskCacheSize = 1 << 30
        /// `WEBIMAGE_CACHE_DISK_MAX_AGE`: seconds an entry is served (from memory or disk)
        /// and stays on disk after it was written; default one week; negative: never.
        /// Removed at the same checks.
        public var diskCacheMaxAge: Duration = .seconds(7 * 24 * 3600)
        /// `WEBIMAGE_GRACEFUL_STOP_TIMEOUT`: seconds requests in flight get to finish after
        /// SIGTERM or SIGINT; default 20.
        public var gracefulStopTimeout: Duration = .seconds(20)
        /// `WEBIMAGE_ALLOWED_SOURCES`: URL prefixes (`https://*.cdn.example/images/`, comma
        /// separated) a source and each of its redirects must match; default none (any
        /// http(s) source). See ``SourcePattern``.
        public var allowedSources: [SourcePattern] = []
        /// Which addresses sources may be fetched from: `WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES`,
        /// `WEBIMAGE_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES`, `WEBIMAGE_ALLOW_PRIVATE_SOURCE_ADDRESSES`
        /// (each default `false`) and `WEBIMAGE_ALLOWED_SOURCE_NETWORKS` (CIDR blocks, comma
        /// separated; default none). Default: the public internet only.
        public var sourceAddresses = SourceAddressPolicy()
        /// `WEBIMAGE_MAX_REDIRECTS`: redirects followed when fetching a source, each hop
        /// checked as the source is; default 10.
        public var maxRedirects = 10
        /// `WEBIMAGE_LOCAL_FILESYSTEM_ROOT` (imgproxy's `IMGPROXY_LOCAL_FILESYSTEM_ROOT`): the
        /// folder `local:///path` and `file:///path` sources are read from, `path` inside it;
        /// default `nil`, no local sources. See ``LocalFileSource``.
        public var localFilesystemRoot: String?
        /// `WEBIMAGE_ALLOW_DATA_SOURCES`: whether a `data:` URL may be a source (its bytes
        /// then ride in the request URL, up to the source byte limit); default `false`.
        public var allowsDataSources = false
        /// `WEBIMAGE_USER_AGENT`: the `User-Agent` of source requests; default `nil`, the
        /// library's own. Origins that serve only known clients, or an operator who wants to
        /// tell nodes apart in an origin's log, set it.
        public var userAgent: String?

        /// The defaults above.
        public init() {}

        /// The defaults, overridden by whichever `WEBIMAGE_*` variables `environment` sets.
        /// - Throws: ``ImageServerError`` naming a variable whose value is malformed.
        public init(environment: [String: String]) throws(ImageServerError) {
            self.init()
            let reader = EnvironmentReader(environment: environment)
            bind = reader.string("BIND") ?? bind
            keys = reader.list("KEY") ?? keys
            salts = reader.list("SALT") ?? salts
            signatureSize = try reader.integer("SIGNATURE_SIZE", in: 1...32) ?? signatureSize
            allowsUnsigned = try reader.bool("INSECURE") ?? allowsUnsigned
            secret = reader.string("SECRET") ?? secret
            allowOrigin = reader.string("ALLOW_ORIGIN") ?? allowOrigin
            allowsPDF = try reader.bool("ALLOW_PDF") ?? allowsPDF
            allowsSVG = try reader.bool("ALLOW_SVG") ?? allowsSVG
            workers = try reader.integer("WORKERS", in: 1...4_096) ?? workers
            // Both read (and checked), so that neither is reported as unknown; ours wins.
            let requestsQueueSize = try reader.integer("REQUESTS_QUEUE_SIZE", in: 0...1_000_000)
            if let size = try reader.integer("QUEUE_SIZE", in: 0...1_000_000) {
                queueSize = size
            } else if let size = requestsQueueSize {
                // imgproxy's name and meaning: 0 is no limit. A waiting job holds a client's
                // connection, so the clients bound it anyway.
                queueSize = size == 0 ? 1_000_000 : size
            }
            // imgproxy's 0 for these three is "no limit". Carried over by renaming (as the
            // README invites), it made the server refuse to start. 0 clients is no limit of
            // the server's own here too (descriptors still bound them); a source and a
            // result are held in memory whole, so their 0 keeps the default bound.
            if let clients = try reader.integer("MAX_CLIENTS", in: 0...1_000_000) {
                maxClients = clients == 0 ? 1_000_000 : clients
            }
            timeout = try reader.seconds("TIMEOUT") ?? timeout
            downloadTimeout = try reader.seconds("DOWNLOAD_TIMEOUT") ?? downloadTimeout
            // imgproxy's 0 turns keep-alive off; other durations take no 0.
            keepAliveTimeout = try reader.seconds("KEEP_ALIVE_TIMEOUT", allowingZero: true) ?? keepAliveTimeout
            writeResponseTimeout = try reader.seconds("WRITE_RESPONSE_TIMEOUT") ?? writeResponseTimeout
            ttl = try reader.integer("TTL", in: 0...Int(Int32.max)) ?? ttl
            maxSourceResolution = try reader.number("MAX_SRC_RESOLUTION", in: 0.000001...100_000) ?? maxSourceResolution
            if let size = try reader.integer("MAX_SRC_FILE_SIZE", in: 0...Int.max), size > 0 { maxSourceFileSize = size }
            maxAnimationFrames = try reader.integer("MAX_ANIMATION_FRAMES", in: 1...1_000_000) ?? maxAnimationFrames
            if let side = try reader.integer("MAX_RESULT_DIMENSION", in: 0...1_000_000), side > 0 { maxResultDimension = side }
            quality = try reader.integer("QUALITY", in: 1...100) ?? quality
            if let pairs = try reader.parsedList("FORMAT_QUALITY", Self.formatQualityPair) {
                for (format, value) in pairs { formatQuality[format] = value }
            }
            preferredFormats = try reader.parsedList("PREFERRED_FORMATS", Self.preferredFormat) ?? preferredFormats
            if preferredFormats.isEmpty { throw .badOptions("WEBIMAGE_PREFERRED_FORMATS names no format") }
            autoWebP = try reader.bool("AUTO_WEBP") ?? autoWebP
            autoAVIF = try reader.bool("AUTO_AVIF") ?? autoAVIF
            useETag = try reader.bool("USE_ETAG") ?? useETag
            prometheusBind = reader.string("PROMETHEUS_BIND") ?? prometheusBind
            resultCache = try reader.cacheLevels("RESULT_CACHE") ?? resultCache
            sourceCache = try reader.cacheLevels("SOURCE_CACHE") ?? sourceCache
            if let directory = reader.string("CACHE_DIR") { cacheDirectory = URL(fileURLWithPath: directory, isDirectory: true) }
            memoryCacheSize = try reader.integer("CACHE_MEMORY_SIZE", in: 0...Int.max) ?? memoryCacheSize
            diskCacheSize = try reader.integer("CACHE_DISK_SIZE", in: 0...Int.max) ?? diskCacheSize
            // Its own range: the default (a week) is past the 24 hours other durations
            // take, and a negative age is "never" (a review's finding: the README's own
            // default stopped the server at start).
            if let age = try reader.number("CACHE_DISK_MAX_AGE", in: -1...(10 * 365 * 86_400)) {
                diskCacheMaxAge = age < 0 ? .seconds(-1) : .milliseconds(Int64((age * 1_000).rounded()))
            }
            gracefulStopTimeout = try reader.seconds("GRACEFUL_STOP_TIMEOUT") ?? gracefulStopTimeout
            allowedSources = try reader.parsedList("ALLOWED_SOURCES", SourcePattern.init(parsing:)) ?? allowedSources
            sourceAddresses.allowsLoopback = try reader.bool("ALLOW_LOOPBACK_SOURCE_ADDRESSES") ?? sourceAddresses.allowsLoopback
            sourceAddresses.allowsLinkLocal = try reader.bool("ALLOW_LINK_LOCAL_SOURCE_ADDRESSES") ?? sourceAddresses.allowsLinkLocal
            sourceAddresses.allowsPrivate = try reader.bool("ALLOW_PRIVATE_SOURCE_ADDRESSES") ?? sourceAddresses.allowsPrivate
            sourceAddresses.allowedNetworks = try reader.parsedList("ALLOWED_SOURCE_NETWORKS", IPNetwork.init(parsing:))
                ?? sourceAddresses.allowedNetworks
            maxRedirects = try reader.integer("MAX_REDIRECTS", in: 0...100) ?? maxRedirects
            userAgent = reader.string("USER_AGENT") ?? userAgent
            localFilesystemRoot = reader.string("LOCAL_FILESYSTEM_ROOT") ?? localFilesystemRoot
            allowsDataSources = try reader.bool("ALLOW_DATA_SOURCES") ?? allowsDataSources
            unrecognizedVariables = reader.unconsulted(besides: Self.variablesReadElsewhere)
        }

        /// The `WEBIMAGE_*` variables of the environment ``init(environment:)`` read that no
        /// setting has, sorted: a misspelt name, or one of imgproxy's carried over by
        /// renaming that this server does not have (`PATH_PREFIX`,
        /// `CACHE_CONTROL_PASSTHROUGH`...). They change nothing; `webimage serve` warns of
        /// them at start, rather than run silently without what the operator asked for.
        public internal(set) var unrecognizedVariables: [String] = []

        /// `WEBIMAGE_*` variables that other parts of the program read, not the server's
        /// settings: the serve command's executor switch, the colour library's allocation
        /// limit, the demo's corpus, the benchmarks' binary, and the tests' and fuzzers' own.
        static let variablesReadElsewhere: Set<String> = [
            "WEBIMAGE_EVENT_LOOP_EXECUTOR", "WEBIMAGE_LCMS_ALLOCATION_LIMIT", "WEBIMAGE_CORPUS", "WEBIMAGE_BIN",
            "WEBIMAGE_TEST_TIME_SCALE", "WEBIMAGE_CACHE_CRASH_WRITER_DIRECTORY", "WEBIMAGE_FUZZ_PATHS", "WEBIMAGE_FUZZ_SEED",
        ]

        /// `FORMAT=QUALITY` of `WEBIMAGE_FORMAT_QUALITY`, the format by imgproxy's names.
        static func formatQualityPair(_ text: String) throws(ImageServerError) -> (ImageFormat, Int) {
            let parts = text.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let quality = Int(parts[1].trimmingCharacters(in: .whitespaces)), (1...100).contains(quality),
                  let format = try? ProcessingPath.format(named: Substring(parts[0].trimmingCharacters(in: .whitespaces)))
            else {
                throw .badOptions("\"\(text)\" is not format=quality, a format the server writes and a quality in 1...100")
            }
            return (format, quality)
        }

        /// One format of `WEBIMAGE_PREFERRED_FORMATS`, by imgproxy's names.
        static func preferredFormat(_ text: String) throws(ImageServerError) -> ImageFormat {
            try ProcessingPath.format(named: Substring(text))
        }

        /// The host and port of ``bind``.
        public func bindAddress() throws(ImageServerError) -> (host: String, port: Int) {
            try Self.hostAndPort(bind, setting: "WEBIMAGE_BIND")
        }

        /// The host and port of ``prometheusBind``, when set.
        public func prometheusAddress() throws(ImageServerError) -> (host: String, port: Int)? {
            guard let prometheusBind else { return nil }
            return try Self.hostAndPort(prometheusBind, setting: "WEBIMAGE_PROMETHEUS_BIND")
        }

        /// Parses `host:port`, `:port` (every interface) or `[v6]:port`; an error names
        /// `setting` (the variable, or the flag that set it).
        package static func hostAndPort(_ text: String, setting: String) throws(ImageServerError) -> (host: String, port: Int) {
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
                throw .badOptions("\(setting) must be host:port, not \"\(text)\"")
            }
            var host = String(text[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return (host.isEmpty ? "0.0.0.0" : host, port)
        }
    }
}

/// Reads `WEBIMAGE_*` settings from an environment, each malformed value a named error.
///
/// A class so that it can note each name asked for, without every reading being `mutating`
/// (it lives for one ``ImageServer/Configuration/init(environment:)`` call, on one thread).
final class EnvironmentReader {
    let environment: [String: String]
    /// Every full name asked for, set or not.
    private var consulted: Set<String> = []

    init(environment: [String: String]) {
        self.environment = environment
    }

    func string(_ name: String) -> String? {
        consulted.insert("WEBIMAGE_" + name)
        guard let value = environment["WEBIMAGE_" + name], !value.isEmpty else { return nil }
        return value
    }

    /// The environment's `WEBIMAGE_*` names, sorted, that were never asked for and are not
    /// in `others`.
    func unconsulted(besides others: Set<String>) -> [String] {
        environment.keys.filter { $0.hasPrefix("WEBIMAGE_") && !consulted.contains($0) && !others.contains($0) }.sorted()
    }

    func list(_ name: String) -> [String]? {
        string(name).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// A comma-separated list, each item parsed by `parse`; an item's error names the variable.
    func parsedList<Item>(_ name: String, _ parse: (String) throws(ImageServerError) -> Item) throws(ImageServerError) -> [Item]? {
        guard let items = list(name) else { return nil }
        var parsed: [Item] = []
        for item in items where !item.isEmpty {
            do {
                parsed.append(try parse(item))
            } catch {
                throw .badOptions("WEBIMAGE_\(name): \(error.message)")
            }
        }
        return parsed
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(ImageServerError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .badOptions("WEBIMAGE_\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    func number(_ name: String, in range: ClosedRange<Double>) throws(ImageServerError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw .badOptions("WEBIMAGE_\(name) must be a number in \(range.lowerBound)...\(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    /// Seconds up to a day, with millisecond precision; 0 only when `allowingZero` (a
    /// duration of 0 would otherwise time everything out at once).
    func seconds(_ name: String, allowingZero: Bool = false) throws(ImageServerError) -> Duration? {
        try number(name, in: (allowingZero ? 0 : 0.001)...86_400).map { .milliseconds(Int64(($0 * 1_000).rounded())) }
    }

    func cacheLevels(_ name: String) throws(ImageServerError) -> ImageServer.Configuration.CacheLevels? {
        guard let text = string(name) else { return nil }
        do {
            return try ImageServer.Configuration.CacheLevels(parsing: text)
        } catch {
            throw .badOptions("WEBIMAGE_\(name): \(error.message)")
        }
    }

    func bool(_ name: String) throws(ImageServerError) -> Bool? {
        guard let text = string(name) else { return nil }
        switch text.lowercased() {
        case "1", "t", "true", "yes": return true
        case "0", "f", "false", "no": return false
        default: throw .badOptions("WEBIMAGE_\(name) must be true or false, not \"\(text)\"")
        }
    }
}
