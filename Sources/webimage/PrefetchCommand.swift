import ArgumentParser
import Foundation
import WebImage

/// `webimage prefetch --from FILE [--concurrency N] [--cache-dir DIR] [--thumbnail WxH]
/// [--quality Q] [--originals] [--decode]`: warms the disk cache with a list of URLs through
/// ``Prefetcher``, with a progress bar when standard error is a terminal, a line per loaded
/// URL when standard output is not one, each skipped URL on standard error, then a summary.
/// Exits with status 1 when any URL was skipped.
///
/// The command returns once every image is on disk (`.waitStoreCache`); a one-shot process
/// has no use for the memory level, so nothing is kept in memory. Without --thumbnail
/// nothing needs decoding: the originals stream into the cache as they arrive (the
/// prefetcher's `.diskCache` destination), so memory does not grow with the images' size;
/// --decode decodes each one instead, to check it is an image and print its size.
struct PrefetchCommand: AsyncParsableCommand {
    /// The most URLs one list may hold: the list is read whole before the loads start (the
    /// bar shows the total), about a hundred bytes of memory per URL.
    static let maxURLCount = 1_000_000
    /// The most bytes of URLs one list may hold (256 MiB): a line may be 64 KiB, so the
    /// count alone would let a list of long URLs take 64 GB before the first load.
    static let maxURLBytes = 256 << 20

    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Load a list of image URLs into the disk cache ahead of need.",
        discussion: """
        Defaults suit a batch job: \(BatchOptions.defaultConcurrency) loads at once (4 per core), \
        thumbnails stored at quality \(Int(BatchOptions.defaultQuality)), and with --thumbnail only \
        the thumbnail stored (--originals keeps the full downloaded image too). A second run with \
        the same --cache-dir and --thumbnail reads the thumbnails from disk instead of downloading.

        Without --thumbnail the original bytes are stored as they arrive, never decoded nor held \
        whole in memory (memory stays at a buffer per download, whatever the images' size); \
        --decode decodes each image instead (checking it is one, and printing its size), holding \
        each whole body in memory while it loads.

        Output: with standard output not a terminal, one line per loaded URL \
        ("loaded URL WxH BYTES from network|disk", without WxH for originals stored \
        undecoded), in the order they finish. Each skipped URL \
        is one line on standard error ("skipped URL: reason"); on a terminal a progress bar is \
        drawn on standard error; a summary line ends the run on standard error. The list may \
        hold at most \(PrefetchCommand.maxURLCount) URLs of at most \(URLListReader.maxLineLength) \
        bytes each.

        Like curl, downloads go through the proxy of $https_proxy, $http_proxy (lower case only) or \
        $all_proxy, except the hosts of $no_proxy; --proxy and --noproxy replace them.

        Exit status: 0 when every URL loaded, 1 when any was skipped or the list cannot be \
        read (a line that is not a URL is named), 64 for a usage error.
        """
    )

    @Option(help: "A file of URLs, one per line; blank lines and lines starting with # are ignored ('-' reads standard input).")
    var from: String

    @OptionGroup var batch: BatchOptions

    @Flag(help: "Decode every image (checking it is one and printing its size) instead of streaming the original bytes to disk; implied by --thumbnail.")
    var decode = false

    /// Whether the originals stream into the cache undecoded: nothing asks for pixels.
    var storesBytesOnly: Bool { batch.thumbnail == nil && !decode }

    func run() async throws {
        var urls: [URL] = []
        do {
            let reader = try URLListReader(path: from)
            urls = try await BlockingIO.run { try reader.readAll(maxCount: Self.maxURLCount, maxBytes: Self.maxURLBytes) }
        } catch {
            try reportingFailures { throw error }
        }
        let downloader = try batch.makeDownloader()
        let cache = batch.cacheBase.map { ImageCache(namespace: "default", directory: $0) } ?? ImageCache.shared
        let manager = batch.makeManager(cache: cache, downloader: downloader)

        let display = ProgressDisplay(total: urls.count)
        let printsLines = isatty(STDOUT_FILENO) != 1
        let dataLines: Prefetcher.DataLoadHandler = { url, outcome in
            switch outcome {
            case .success(let result):
                let size = result.byteCount ?? 0
                let line = "loaded \(url.absoluteString) \(ProgressDisplay.bytes(size)) from \(Self.source(result.cacheType))"
                display.loaded(bytes: size, line: printsLines ? line : nil)
            case .failure(let error):
                display.failed(line: "skipped \(url.absoluteString): \(error.description)")
            }
        }
        // The manager stores what it decoded without failing the load when the disk refuses
        // it (as SDWebImage does): filling the cache is this command's whole job, so each
        // image that came from the network is looked for on disk, and one missing is a
        // failure. Without the check a read-only or full cache gave "loaded" and status 0.
        let loadContext = context()
        let unstored = LockedValue(0)
        let imageLines: Prefetcher.LoadHandler = { url, outcome in
            switch outcome {
            case .success(let result) where result.cacheType == .none
                && !(manager.cacheKey(for: url, context: loadContext).map(cache.diskCache.containsData(forKey:)) ?? true):
                unstored.withLock { $0 += 1 }
                display.failed(line: "skipped \(url.absoluteString): loaded, but it could not be stored in the cache at \(cache.diskCache.directory.path)")
            case .success(let result):
                let size = result.data?.count ?? 0
                let line = "loaded \(url.absoluteString) \(result.image.size.width)x\(result.image.size.height) "
                    + "\(ProgressDisplay.bytes(size)) from \(Self.source(result.cacheType))"
                display.loaded(bytes: size, line: printsLines ? line : nil)
            case .failure(let error):
                display.failed(line: "skipped \(url.absoluteString): \(error.description)")
            }
        }
        let prefetcher = storesBytesOnly
            ? Prefetcher(manager: manager, maxConcurrentPrefetchCount: batch.loadsAtOnce, destination: .diskCache, dataLoadHandler: dataLines)
            : Prefetcher(manager: manager, maxConcurrentPrefetchCount: batch.loadsAtOnce, loadHandler: imageLines)
        let started = ContinuousClock.now
        let summary = await prefetcher.prefetch(urls: urls, options: [.waitStoreCache], context: loadContext)
        let notStored = unstored.withLock { $0 }
        display.finish("prefetched \(summary.total) URLs: finished \(summary.finished), loaded \(summary.loaded - notStored), "
            + "skipped \(summary.skipped + notStored), \(ProgressDisplay.bytes(display.counts.bytes)) in \(ProgressDisplay.seconds(ContinuousClock.now - started))")
        try await downloader.shutdown()
        if summary.skipped > 0 || notStored > 0 { throw ExitCode.failure }
    }

    /// The context of every load: the batch options' (thumbnail, quality, originals), stored
    /// on disk only.
    func context() -> ImageContext {
        var context = batch.context()
        context.storeCacheType = .disk
        return context
    }

    private static func source(_ cacheType: ImageCacheType) -> String {
        switch cacheType {
        case .none: "network"
        case .disk: "disk"
        case .memory, .all: "memory"
        }
    }
}
