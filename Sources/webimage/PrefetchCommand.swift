import ArgumentParser
import Foundation
import WebImage

/// `webimage prefetch --from FILE [--concurrency N] [--cache-dir DIR] [--thumbnail WxH]
/// [--quality Q] [--no-originals]`: warms the disk cache with a list of URLs through
/// ``Prefetcher``, showing a live progress bar on a terminal and one line per URL
/// otherwise, then a summary. Exits with status 1 when any URL was skipped.
///
/// The command returns once every image is on disk (`.waitStoreCache`); a one-shot process
/// has no use for the memory level, so nothing is kept in memory.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Load a list of image URLs into the cache ahead of need.",
        discussion: """
        With --thumbnail each image is decoded straight to that size and the thumbnail is \
        stored under its own key (encoded at --quality); a second run with the same \
        --cache-dir and --thumbnail reads the thumbnails from disk instead of downloading. \
        The full downloaded bytes are stored too unless --no-originals is given.
        """
    )

    @Option(help: "A file of URLs, one per line; blank lines and lines starting with # are ignored ('-' reads standard input).")
    var from: String

    @Option(help: "How many images load at once.")
    var concurrency = 3

    @Option(name: .customLong("cache-dir"), help: "The cache's parent directory (default: $XDG_CACHE_HOME/swift-web-image).")
    var cacheDirectory: String?

    @Option(help: "Decode each image to fit inside WxH (keeping its aspect ratio) and cache that thumbnail.")
    var thumbnail: ImageSize?

    @Option(help: "Quality (0-100) of the images the cache encodes itself, such as thumbnails.")
    var quality: Double = 100

    @Flag(inversion: .prefixedNo, help: "With --thumbnail, also store each full downloaded image on disk.")
    var originals = true

    @Option(help: "Give up on a request that receives nothing for this many seconds.")
    var timeout: Double = 15

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard (0...100).contains(quality) else { throw ValidationError("--quality must be between 0 and 100") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        var urls: [URL] = []
        try reportingFailures {
            let text = String(decoding: from == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try readInput(from), as: UTF8.self)
            urls = try Self.parseURLList(text)
        }
        var config = Downloader.Configuration()
        config.timeout = downloaderTimeout(seconds: timeout)
        // The prefetcher bounds the loads; the downloader must not bound them lower.
        config.maxConcurrentDownloads = max(config.maxConcurrentDownloads, concurrency)
        let downloader = Downloader(config: config)
        let base = cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        let cache = base.map { ImageCache(namespace: "default", directory: $0) } ?? ImageCache.shared
        let manager = ImageManager(cache: cache, loader: LoadersManager(loaders: [downloader, FileURLLoader(), DataURLLoader()]))

        let display = PrefetchDisplay(total: urls.count, isTerminal: isatty(STDOUT_FILENO) == 1)
        let prefetcher = Prefetcher(manager: manager, maxConcurrentPrefetchCount: concurrency) { url, outcome in
            display.record(url, outcome)
        }
        let started = ContinuousClock.now
        let summary = await prefetcher.prefetch(urls: urls, options: [.waitStoreCache], context: context()) { finished, _ in
            display.progress(finished)
        }
        display.finish(summary, elapsed: ContinuousClock.now - started)
        try await downloader.shutdown()
        if summary.skipped > 0 { throw ExitCode.failure }
    }

    /// The context of every load: disk only, the thumbnail size, the quality of what the
    /// cache encodes, and whether originals are stored.
    func context() -> ImageContext {
        var context = ImageContext()
        context.storeCacheType = .disk
        context.thumbnailPixelSize = thumbnail
        if !originals { context.originalStoreCacheType = ImageCacheType.none }
        context.cacheSerializer = Self.serializer(quality: quality)
        return context
    }

    /// Stores downloaded bytes unchanged and encodes a derived image (a thumbnail) in the
    /// cache's usual format at `quality` (0-100).
    static func serializer(quality: Double) -> BlockCacheSerializer {
        BlockCacheSerializer { image, data, _ in
            if let data { return data }
            var options = ImageCoderOptions()
            options.compressionQuality = quality / 100
            let coder = CodersManager.shared
            return try? coder.encode(image, as: ImageCache.storageFormat(for: image, coder: coder), options: options)
        }
    }

    /// The URLs of a list: one per line, surrounding spaces trimmed, blank lines and `#`
    /// comments skipped. A line that is not an absolute URL is an error naming the line.
    static func parseURLList(_ text: String) throws -> [URL] {
        var urls: [URL] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let url = URL(string: line), url.scheme != nil else {
                throw ValidationError("line \(number + 1) is not an absolute URL: \(line)")
            }
            urls.append(url)
        }
        return urls
    }
}
