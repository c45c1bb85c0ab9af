import ArgumentParser
import Foundation
import WebImage

/// The options `fetch` and `prefetch` share, with defaults chosen for a command-line batch
/// job rather than for an app: several loads at once, thumbnails stored at the quality
/// image services use, and no full-size originals unless asked for.
struct BatchOptions: ParsableArguments {
    /// Loads in flight when `--concurrency` is not given: four per core, at least 4, at
    /// most 64. A load alternates between waiting on the network and decoding on a core; with
    /// about four per core, each core has a downloaded body to decode while the others
    /// wait for theirs. More only holds more bodies and pixels in memory at once (on the
    /// end-to-end benchmark 4, 8 and 16 per 2 cores were within its noise); the cap keeps
    /// a many-core machine from opening hundreds of connections to one origin.
    static let defaultConcurrency = min(max(4 * ProcessInfo.processInfo.activeProcessorCount, 4), 64)

    /// The quality (0-100) of thumbnails the cache encodes itself when `--quality` is not
    /// given: 80, what imgproxy and thumbor default to. 100 (the library's default) makes
    /// 256-px JPEG thumbnails of photos about four times larger (3.6-4.4 times for the
    /// corpus's three camera photos), for no difference a viewer sees at that size.
    static let defaultQuality = 80.0

    @Option(name: .customLong("cache-dir"), help: "The cache's parent directory (default: $XDG_CACHE_HOME/swift-web-image).")
    var cacheDirectory: String?

    @Option(help: "Decode each image to fit inside WxH (\(ImageSize.argumentHelp); keeping its aspect ratio) and cache that thumbnail under its own key.")
    var thumbnail: ImageSize?

    @Option(help: ArgumentHelp(
        "How many images load at once (default: 4 per core, at least 4, at most 64; here \(BatchOptions.defaultConcurrency)).",
        valueName: "n"
    ))
    var concurrency: Int?

    @Option(help: "Quality (0-100) of the images the command encodes itself in a lossy format: thumbnails in the cache, and fetch's -o files; downloaded bytes are stored unchanged.")
    var quality: Double = BatchOptions.defaultQuality

    @Flag(inversion: .prefixedNo, help: "With --thumbnail (or fetch's --transform), also store each full downloaded image on disk.")
    var originals = false

    @Option(help: "Give up on a request that receives nothing for this many seconds.")
    var timeout: Double = 15

    @Option(name: .customLong("max-time"), help: "Give up on a download that takes longer than this many seconds in all, as curl's --max-time (default: no limit).")
    var maxTime: Double?

    @OptionGroup(title: "Network options (as curl's)") var network: NetworkOptions

    func validate() throws {
        // Each load may hold a connection and a cache file: past a few hundred, the
        // process's descriptors (1,024 by default) run out before any throughput is won.
        if let concurrency, !(1...Self.maximumConcurrency).contains(concurrency) {
            throw ValidationError("--concurrency must be between 1 and \(Self.maximumConcurrency)")
        }
        try validateQuality(quality)
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        if let maxTime, !(maxTime > 0) { throw ValidationError("--max-time must be positive") }
    }

    /// The most loads `--concurrency` may ask for at once.
    static let maximumConcurrency = 256

    /// `--concurrency`, or the default.
    var loadsAtOnce: Int { concurrency ?? Self.defaultConcurrency }

    /// `--cache-dir` as a directory URL.
    var cacheBase: URL? { cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) } }

    /// A downloader that lets ``loadsAtOnce`` downloads run together (its own default limit
    /// is lower), with the `--timeout` and the network options (the proxy from the
    /// environment unless `--proxy` is given, like curl).
    /// - Throws: `ExitCode.failure`, after one line on standard error, when a proxy,
    ///   certificate or key cannot be used.
    func makeDownloader() throws -> Downloader {
        var config = Downloader.Configuration()
        config.timeout = downloaderTimeout(seconds: timeout)
        config.maximumDuration = maxTime.map { downloaderTimeout(seconds: $0) }
        config.maxConcurrentDownloads = max(config.maxConcurrentDownloads, loadsAtOnce)
        try reportingFailures { try network.apply(to: &config, environment: ProcessInfo.processInfo.environment) }
        return Downloader(config: config)
    }

    /// A manager over `cache` that loads `http(s):` through `downloader`, and `file:` and
    /// `data:` URLs too.
    func makeManager(cache: ImageCache, downloader: Downloader) -> ImageManager {
        ImageManager(cache: cache, loader: LoadersManager(loaders: [downloader, FileURLLoader(), DataURLLoader()]))
    }

    /// The context these options ask for: the thumbnail size, whether originals are kept
    /// beside a derived image, and the quality the cache encodes derived images at.
    func context() -> ImageContext {
        var context = ImageContext()
        context.thumbnailPixelSize = thumbnail
        if !originals { context.originalStoreCacheType = ImageCacheType.none }
        var encode = ImageCoderOptions()
        encode.compressionQuality = quality / 100
        context.imageEncodeOptions = encode
        return context
    }
}
