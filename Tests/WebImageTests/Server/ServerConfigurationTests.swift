import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// `ImageServer.Configuration`: the defaults, each `WEBIMAGE_*` variable read, malformed
/// values refused by name, the cache levels, the bind addresses, and the server's refusal
/// to start unsigned unless told to.
@Suite struct ServerConfigurationTests {
    typealias Configuration = ImageServer.Configuration

    @Test func defaultsAreImgproxys() {
        let configuration = Configuration()
        #expect(configuration.bind == "0.0.0.0:8080")
        #expect(configuration.keys.isEmpty && configuration.salts.isEmpty)
        #expect(configuration.signatureSize == 32)
        #expect(!configuration.allowsUnsigned)
        #expect(configuration.secret == nil)
        #expect(configuration.workers == ProcessInfo.processInfo.activeProcessorCount)
        #expect(configuration.queueSize == nil)
        #expect(configuration.effectiveQueueSize == 8 * configuration.workers)
        #expect(configuration.maxClients == 2_048)
        #expect(configuration.timeout == .seconds(10))
        #expect(configuration.downloadTimeout == .seconds(5))
        #expect(configuration.ttl == 31_536_000)
        #expect(configuration.maxSourceResolution == 50)
        #expect(configuration.maxSourceFileSize == 100 << 20)
        #expect(configuration.maxAnimationFrames == 1_000)
        #expect(configuration.maxResultDimension == 8_192)
        #expect(configuration.quality == 80)
        #expect(configuration.formatQuality == [.webp: 79, .avif: 63, .jpegXL: 77])
        #expect(configuration.preferredFormats == [.jpeg, .png, .gif])
        #expect(!configuration.autoWebP && !configuration.autoAVIF && !configuration.useETag)
        #expect(configuration.prometheusBind == nil)
        #expect(configuration.resultCache == .memory)
        #expect(configuration.sourceCache == [])
        #expect(configuration.memoryCacheSize == 256 << 20)
        #expect(configuration.gracefulStopTimeout == .seconds(20))
        #expect(configuration.allowedSources.isEmpty)
        #expect(configuration.sourceAddresses == SourceAddressPolicy())
        #expect(!configuration.sourceAddresses.allowsLoopback && !configuration.sourceAddresses.allowsLinkLocal)
        #expect(!configuration.sourceAddresses.allowsPrivate && configuration.sourceAddresses.allowedNetworks.isEmpty)
        #expect(configuration.maxRedirects == 10)
    }

    @Test func sourcePolicyVariablesAreRead() throws {
        let configuration = try Configuration(environment: [
            "WEBIMAGE_ALLOWED_SOURCES": "https://*.cdn.example/, http://127.0.0.1:8080/images/",
            "WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
            "WEBIMAGE_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": "1",
            "WEBIMAGE_ALLOW_PRIVATE_SOURCE_ADDRESSES": "yes",
            "WEBIMAGE_ALLOWED_SOURCE_NETWORKS": "10.20.0.0/16,fd00:1::/32",
            "WEBIMAGE_MAX_REDIRECTS": "3",
            "WEBIMAGE_USER_AGENT": "node-a/1",
        ])
        #expect(configuration.allowedSources.map(\.description) == ["https://*.cdn.example/", "http://127.0.0.1:8080/images/"])
        #expect(configuration.sourceAddresses.allowsLoopback && configuration.sourceAddresses.allowsLinkLocal)
        #expect(configuration.sourceAddresses.allowsPrivate)
        #expect(configuration.sourceAddresses.allowedNetworks.map(\.description) == ["10.20.0.0/16", "fd00:1::/32"])
        #expect(configuration.maxRedirects == 3)
        #expect(configuration.userAgent == "node-a/1")
        #expect(try Configuration(environment: [:]).userAgent == nil)
    }

    @Test func theDefaultQueueFollowsTheWorkers() throws {
        let configuration = try Configuration(environment: ["WEBIMAGE_WORKERS": "3"])
        #expect(configuration.queueSize == nil)
        #expect(configuration.effectiveQueueSize == 24)
        let explicit = try Configuration(environment: ["WEBIMAGE_WORKERS": "3", "WEBIMAGE_QUEUE_SIZE": "5"])
        #expect(explicit.effectiveQueueSize == 5)
    }

    /// A `WEBIMAGE_*` name no setting has (misspelt, or an imgproxy setting this server
    /// lacks) is reported, so that `serve` can warn of it; names other parts of the
    /// program read are not.
    @Test func variablesNoSettingHasAreReported() throws {
        let configuration = try Configuration(environment: [
            "WEBIMAGE_WORKERS": "2", "WEBIMAGE_PATH_PREFIX": "/img", "WEBIMAGE_QUALTY": "50",
            "WEBIMAGE_EVENT_LOOP_EXECUTOR": "0", "WEBIMAGE_TEST_TIME_SCALE": "3", "WEBIMAGE_SALT": "",
            "IMGPROXY_KEY": "00", "HOME": "/root",
        ])
        #expect(configuration.unrecognizedVariables == ["WEBIMAGE_PATH_PREFIX", "WEBIMAGE_QUALTY"])
        #expect(configuration.workers == 2)
        #expect(try Configuration(environment: ["WEBIMAGE_TTL": "5"]).unrecognizedVariables.isEmpty)
        // imgproxy's queue name beside ours is read (ours wins), not unknown.
        #expect(try Configuration(environment: ["WEBIMAGE_QUEUE_SIZE": "2", "WEBIMAGE_REQUESTS_QUEUE_SIZE": "9"]).unrecognizedVariables.isEmpty)
    }

    /// imgproxy's `IMGPROXY_REQUESTS_QUEUE_SIZE`, renamed as the README says settings carry
    /// over, was ignored; it is read with imgproxy's meaning (0 is no limit), and our own
    /// name wins when both are set.
    @Test func imgproxysQueueSizeIsReadWithItsMeaning() throws {
        #expect(try Configuration(environment: ["WEBIMAGE_REQUESTS_QUEUE_SIZE": "7"]).effectiveQueueSize == 7)
        #expect(try Configuration(environment: ["WEBIMAGE_REQUESTS_QUEUE_SIZE": "0"]).effectiveQueueSize == 1_000_000)
        // imgproxy's 0 ("no limit") for these, carried over by renaming, starts the server.
        let zeros = try Configuration(environment: [
            "WEBIMAGE_MAX_CLIENTS": "0", "WEBIMAGE_MAX_SRC_FILE_SIZE": "0", "WEBIMAGE_MAX_RESULT_DIMENSION": "0",
        ])
        #expect(zeros.maxClients == 1_000_000)
        #expect(zeros.maxSourceFileSize == Configuration().maxSourceFileSize)
        #expect(zeros.maxResultDimension == Configuration().maxResultDimension)
        // And imgproxy's 0 keep-alive is keep-alive off, where other durations refuse 0.
        let noKeepAlive = try Configuration(environment: ["WEBIMAGE_KEEP_ALIVE_TIMEOUT": "0"])
        #expect(!noKeepAlive.keepsAlive)
        #expect(try Configuration(environment: ["WEBIMAGE_KEEP_ALIVE_TIMEOUT": "0.5"]).keepsAlive)
        #expect(Configuration().keepsAlive)
        #expect(try Configuration(environment: ["WEBIMAGE_QUEUE_SIZE": "0"]).effectiveQueueSize == 0)
        let both = try Configuration(environment: ["WEBIMAGE_QUEUE_SIZE": "2", "WEBIMAGE_REQUESTS_QUEUE_SIZE": "9"])
        #expect(both.effectiveQueueSize == 2)
    }

    /// A review's finding: the downloader's limit stayed at 64 with more workers, so the
    /// excess downloads waited inside it and spent their download time-out there.
    @Test func theSourceDownloaderAllowsEveryWorker() throws {
        #expect(ImageServer.sourceDownloadLimit(workers: 80) == 80)
        #expect(ImageServer.sourceDownloadLimit(workers: 2) == 64)
        let server = try ImageServer(configuration: .testing { $0.workers = 2 })
        #expect((server.fetcher as? GuardedSourceFetcher)?.downloader.config.maxConcurrentDownloads == 64)
    }

    /// A review's finding: the README's default (a week) was past the 24 hours durations
    /// took, and stopped the server at start; -1 is "never".
    @Test func theDiskMaxAgeTakesWeeksAndNever() throws {
        #expect(try Configuration(environment: ["WEBIMAGE_CACHE_DISK_MAX_AGE": "604800"]).diskCacheMaxAge == .seconds(604_800))
        #expect(try Configuration(environment: ["WEBIMAGE_CACHE_DISK_MAX_AGE": "-1"]).diskCacheMaxAge < .zero)
    }

    @Test func emptyEnvironmentGivesTheDefaults() throws {
        let configuration = try Configuration(environment: [:])
        let defaults = Configuration()
        #expect(configuration.bind == defaults.bind)
        #expect(configuration.workers == defaults.workers)
        #expect(configuration.resultCache == defaults.resultCache)
        #expect(configuration.cacheDirectory == defaults.cacheDirectory)
    }

    @Test func everyVariableIsRead() throws {
        let configuration = try Configuration(environment: [
            "WEBIMAGE_BIND": "127.0.0.1:9000",
            "WEBIMAGE_KEY": "736563726574, 0102",
            "WEBIMAGE_SALT": "68656C6C6F,0304",
            "WEBIMAGE_SIGNATURE_SIZE": "8",
            "WEBIMAGE_INSECURE": "yes",
            "WEBIMAGE_SECRET": "s3cret",
            "WEBIMAGE_WORKERS": "3",
            "WEBIMAGE_QUEUE_SIZE": "0",
            "WEBIMAGE_MAX_CLIENTS": "10",
            "WEBIMAGE_TIMEOUT": "2.5",
            "WEBIMAGE_DOWNLOAD_TIMEOUT": "0.25",
            "WEBIMAGE_KEEP_ALIVE_TIMEOUT": "4",
            "WEBIMAGE_WRITE_RESPONSE_TIMEOUT": "3.5",
            "WEBIMAGE_ALLOW_ORIGIN": "*",
            "WEBIMAGE_ALLOW_PDF": "1",
            "WEBIMAGE_ALLOW_SVG": "true",
            "WEBIMAGE_TTL": "60",
            "WEBIMAGE_MAX_SRC_RESOLUTION": "1.5",
            "WEBIMAGE_MAX_SRC_FILE_SIZE": "1000",
            "WEBIMAGE_MAX_ANIMATION_FRAMES": "7",
            "WEBIMAGE_MAX_RESULT_DIMENSION": "512",
            "WEBIMAGE_QUALITY": "55",
            "WEBIMAGE_FORMAT_QUALITY": "webp=70, jxl=90",
            "WEBIMAGE_PREFERRED_FORMATS": "webp,png",
            "WEBIMAGE_AUTO_WEBP": "1",
            "WEBIMAGE_AUTO_AVIF": "true",
            "WEBIMAGE_USE_ETAG": "t",
            "WEBIMAGE_PROMETHEUS_BIND": ":9100",
            "WEBIMAGE_RESULT_CACHE": "memory,disk",
            "WEBIMAGE_SOURCE_CACHE": "disk",
            "WEBIMAGE_CACHE_DIR": "/tmp/webimage-config-test",
            "WEBIMAGE_CACHE_MEMORY_SIZE": "4096",
            "WEBIMAGE_CACHE_DISK_SIZE": "8192",
            "WEBIMAGE_CACHE_DISK_MAX_AGE": "60",
            "WEBIMAGE_GRACEFUL_STOP_TIMEOUT": "3",
        ])
        #expect(configuration.bind == "127.0.0.1:9000")
        #expect(configuration.keys == ["736563726574", "0102"])
        #expect(configuration.salts == ["68656C6C6F", "0304"])
        #expect(configuration.signatureSize == 8)
        #expect(configuration.allowsUnsigned)
        #expect(configuration.secret == "s3cret")
        #expect(configuration.workers == 3)
        #expect(configuration.queueSize == 0)
        #expect(configuration.maxClients == 10)
        #expect(configuration.timeout == .milliseconds(2_500))
        #expect(configuration.downloadTimeout == .milliseconds(250))
        #expect(configuration.keepAliveTimeout == .seconds(4))
        #expect(configuration.writeResponseTimeout == .milliseconds(3_500))
        #expect(configuration.allowOrigin == "*")
        #expect(configuration.allowsPDF)
        #expect(configuration.allowsSVG)
        #expect(configuration.ttl == 60)
        #expect(configuration.maxSourceResolution == 1.5)
        #expect(configuration.maxSourceFileSize == 1_000)
        #expect(configuration.maxAnimationFrames == 7)
        #expect(configuration.maxResultDimension == 512)
        #expect(configuration.quality == 55)
        #expect(configuration.formatQuality == [.webp: 70, .avif: 63, .jpegXL: 90], "the pairs given replace only their formats' defaults")
        #expect(configuration.preferredFormats == [.webp, .png])
        #expect(configuration.autoWebP && configuration.autoAVIF && configuration.useETag)
        #expect(configuration.prometheusBind == ":9100")
        #expect(configuration.resultCache == [.memory, .disk])
        #expect(configuration.sourceCache == .disk)
        #expect(configuration.cacheDirectory.path == "/tmp/webimage-config-test")
        #expect(configuration.memoryCacheSize == 4_096)
        #expect(configuration.diskCacheSize == 8_192)
        #expect(configuration.diskCacheMaxAge == .seconds(60))
        #expect(configuration.gracefulStopTimeout == .seconds(3))
    }

    @Test func variablesWithoutThePrefixOrEmptyAreIgnored() throws {
        let configuration = try Configuration(environment: ["IMGPROXY_WORKERS": "3", "WORKERS": "3", "WEBIMAGE_WORKERS": "", "WEBIMAGE_BIND": ""])
        #expect(configuration.workers == Configuration().workers)
        #expect(configuration.bind == "0.0.0.0:8080")
    }

    @Test(arguments: [
        ("SIGNATURE_SIZE", "0"), ("SIGNATURE_SIZE", "33"), ("INSECURE", "maybe"), ("WORKERS", "0"), ("WORKERS", "two"),
        ("QUEUE_SIZE", "-1"), ("MAX_CLIENTS", "-1"), ("TIMEOUT", "0"), ("KEEP_ALIVE_TIMEOUT", "-1"), ("WRITE_RESPONSE_TIMEOUT", "0"), ("TIMEOUT", "soon"), ("TIMEOUT", "-1"),
        ("DOWNLOAD_TIMEOUT", "100000"), ("TTL", "-5"), ("MAX_SRC_RESOLUTION", "0"), ("MAX_SRC_FILE_SIZE", "-1"),
        ("MAX_ANIMATION_FRAMES", "1.5"), ("MAX_RESULT_DIMENSION", "x"), ("QUALITY", "0"), ("QUALITY", "101"),
        ("AUTO_WEBP", "2"), ("AUTO_AVIF", "on"), ("USE_ETAG", "y"), ("RESULT_CACHE", "redis"), ("SOURCE_CACHE", "memory,s3"),
        ("CACHE_MEMORY_SIZE", "-1"), ("CACHE_DISK_SIZE", "-1"), ("CACHE_DISK_MAX_AGE", "never"), ("GRACEFUL_STOP_TIMEOUT", "forever"), ("ALLOWED_SOURCES", "https://a.example/,ftp://b"),
        ("ALLOW_LOOPBACK_SOURCE_ADDRESSES", "sure"), ("ALLOW_PRIVATE_SOURCE_ADDRESSES", "2"),
        ("ALLOW_LINK_LOCAL_SOURCE_ADDRESSES", "x"), ("ALLOWED_SOURCE_NETWORKS", "10.0.0.0/8,10.1.2.3/16"),
        ("MAX_REDIRECTS", "-1"), ("MAX_REDIRECTS", "101"),
        ("FORMAT_QUALITY", "webp=0"), ("FORMAT_QUALITY", "webp"), ("FORMAT_QUALITY", "svg=50"), ("PREFERRED_FORMATS", "jpeg,svg"),
    ])
    func malformedValueThrowsNamingTheVariable(_ name: String, value: String) {
        do {
            _ = try Configuration(environment: ["WEBIMAGE_" + name: value])
            Issue.record("WEBIMAGE_\(name)=\(value) was accepted")
        } catch {
            #expect(error.status == 400)
            #expect(error.message.contains("WEBIMAGE_" + name), "\(error.message)")
            // The value refused (of a list, the part refused).
            #expect(error.message.contains(value.split(separator: ",").last.map(String.init) ?? value), "\(error.message)")
        }
    }

    static let cacheLevelCases: [(String, Configuration.CacheLevels)] = [
        ("memory", .memory), ("disk", .disk), ("memory,disk", [.memory, .disk]), ("disk, memory", [.memory, .disk]),
        ("off", []), ("none", []), ("", []), ("MEMORY", .memory), ("memory,off", .memory),
    ]

    @Test(arguments: cacheLevelCases)
    func cacheLevelsParse(_ text: String, levels: Configuration.CacheLevels) throws {
        #expect(try Configuration.CacheLevels(parsing: text) == levels)
    }

    @Test func cacheLevelsRefuseUnknownNames() {
        #expect(throws: ImageServerError.self) { try Configuration.CacheLevels(parsing: "memcached") }
    }

    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080), (":9000", "0.0.0.0", 9000), ("[::1]:0", "::1", 0), ("0.0.0.0:65535", "0.0.0.0", 65535),
        ("localhost:1", "localhost", 1),
    ])
    func bindAddressesParse(_ text: String, host: String, port: Int) throws {
        var configuration = Configuration()
        configuration.bind = text
        let address = try configuration.bindAddress()
        #expect(address.host == host)
        #expect(address.port == port)
        configuration.prometheusBind = text
        let metrics = try #require(try configuration.prometheusAddress())
        #expect(metrics.host == host && metrics.port == port)
    }

    @Test(arguments: ["8080", "host:", "host:65536", "host:-1", "host:http"])
    func malformedBindAddressesThrowNamingTheSetting(_ text: String) {
        var configuration = Configuration()
        configuration.bind = text
        configuration.prometheusBind = text
        #expect(throws: ImageServerError.badOptions("WEBIMAGE_BIND must be host:port, not \"\(text)\"")) { try configuration.bindAddress() }
        #expect(throws: ImageServerError.badOptions("WEBIMAGE_PROMETHEUS_BIND must be host:port, not \"\(text)\"")) { try configuration.prometheusAddress() }
    }

    @Test func noPrometheusBindMeansNoMetricsListener() throws {
        #expect(try Configuration().prometheusAddress() == nil)
    }

    // MARK: Server creation

    // A server starts its worker threads when it is created: each one made here is shut
    // down, as its documentation asks.

    @Test func serverWithoutKeysRefusesToStartUnlessUnsignedIsAllowed() async throws {
        var configuration = Configuration()
        configuration.workers = 1
        do {
            _ = try ImageServer(configuration: configuration)
            Issue.record("an unsigned server started without allowsUnsigned")
        } catch {
            #expect(error.status == 400)
            #expect(error.message.contains("WEBIMAGE_KEY"))
        }
        configuration.allowsUnsigned = true
        let unsigned = try ImageServer(configuration: configuration)
        #expect(!unsigned.verifiesSignatures)
        try await unsigned.shutdown()
        configuration.keys = ["736563726574"]
        configuration.salts = ["68656C6C6F"]
        let signed = try ImageServer(configuration: configuration)
        #expect(signed.verifiesSignatures)
        try await signed.shutdown()
    }

    @Test func serverRefusesMismatchedOrMalformedKeys() {
        var configuration = Configuration()
        configuration.workers = 1
        configuration.keys = ["736563726574", "0102"]
        configuration.salts = ["68656C6C6F"]
        #expect(throws: ImageServerError.self) { try ImageServer(configuration: configuration) }
        configuration.keys = ["xyz0"]
        configuration.salts = ["00"]
        #expect(throws: ImageServerError.self) { try ImageServer(configuration: configuration) }
    }

    @Test func serverPassesItsLimitsToTheProcessor() async throws {
        var configuration = Configuration()
        configuration.allowsUnsigned = true
        configuration.workers = 1
        configuration.quality = 42
        configuration.maxSourceResolution = 2.5
        configuration.maxAnimationFrames = 9
        configuration.maxResultDimension = 300
        let server = try ImageServer(configuration: configuration)
        #expect(server.processor.configuration.quality == 42)
        #expect(server.processor.configuration.maxSourcePixels == 2_500_000)
        #expect(server.processor.configuration.maxAnimationFrames == 9)
        #expect(server.processor.configuration.maxResultDimension == 300)
        try await server.shutdown()
    }
}
