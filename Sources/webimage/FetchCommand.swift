import ArgumentParser
import Foundation
import WebImage

/// `webimage fetch URL... [-] [--concurrency N] [--cache-dir DIR] [--thumbnail WxH]
/// [--transform SPEC] [-o OUT] [--raw]`: loads images through ``ImageManager`` (memory, disk
/// cache, then network), several at once, and prints, per URL, where each came from, its
/// size, format and the time it took. With `--raw` nothing is decoded: the original bytes
/// stream into the disk cache (``ImageManager/loadOriginalData(with:options:context:progress:)``)
/// and `-o` gets a copy of them.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images by URL through the cache and print where each came from.",
        discussion: """
        Loads up to --concurrency URLs at once (default \(BatchOptions.defaultConcurrency): 4 per \
        core) and prints a line per loaded URL on standard output in the order they finish: \
        SOURCE (network, loader, disk or memory), WIDTHxHEIGHT, format, bytes, milliseconds, URL. \
        A URL given twice is downloaded once and comes from memory the second time; a second run with \
        the same --cache-dir comes from disk. '-' reads URLs from standard input, one per line \
        (blank lines and lines starting with # skipped, at most \(URLListReader.maxLineLength) \
        bytes a line), loading each as it arrives.

        A failed URL is one line on standard error ("failed   URL: reason") and the others \
        still load. On a terminal a progress bar is drawn on standard error; a summary line \
        (loaded, failed, bytes, seconds) ends the run on standard error. With --thumbnail the \
        thumbnail is stored at --quality (default \(Int(BatchOptions.defaultQuality))) and the \
        full downloaded image only with --originals. -o files in a lossy format are encoded \
        at --quality too.

        --transform takes steps separated by ';', run left to right: resize=WxH[,MODE] \
        (MODE fill, the default, which stretches to exactly WxH as SDWebImage's resizing \
        transformer does; fit keeps the aspect ratio inside WxH, as magick -resize; cover \
        fills WxH and crops), crop=X,Y,W,H, flip=h|v|hv, rotate=DEG[,fit|keep] (degrees \
        counter-clockwise, as SDWebImage's; magick -rotate turns clockwise), \
        round=R[,corners=tl+tr+bl+br][,border=W][,color=#RRGGBBAA], tint=#COLOR[,MODE], \
        blur=SIGMA.

        With --raw nothing is decoded: each download streams into the disk cache as it arrives \
        (memory stays at a buffer per download, whatever the image's size) and -o gets the \
        bytes unchanged (a directory receives INDEX-NAME with the URL's own extension); the \
        line shows "-" for the size and "raw" for the format. --raw cannot be combined with \
        --thumbnail or --transform.

        Like curl, downloads go through the proxy of $https_proxy, $http_proxy (lower case only) or \
        $all_proxy, except the hosts of $no_proxy; --proxy and --noproxy replace them.

        Exit status: 0 when every URL loaded, 1 when any failed, 64 for a usage error.
        """
    )

    @Argument(help: "The image URLs (http, https, file or data); '-' reads them from standard input.")
    var urls: [String]

    @OptionGroup var batch: BatchOptions

    @Option(name: .long, help: "Transformers to apply, e.g. 'resize=256x256,fit;round=12' (the steps are listed above).", transform: TransformSpec.argument)
    var transform: TransformSpec?

    @Option(name: .shortAndLong, help: "Write the image here (PNG unless the extension names another format); with several URLs or '-', or a name ending in '/' or naming a directory, a directory receiving INDEX-NAME.png.")
    var output: String?

    @Flag(help: "Do not decode: store the original bytes as they arrive (a buffer of memory per download) and write them unchanged to -o.")
    var raw = false

    func validate() throws {
        if raw, batch.thumbnail != nil || transform != nil { throw ValidationError("--raw writes the original bytes: it cannot be combined with --thumbnail or --transform") }
        if urls.isEmpty { throw ValidationError("give at least one URL, or '-' to read them from standard input") }
        if urls.count(where: { $0 == "-" }) > 1 { throw ValidationError("'-' (standard input) may be given once") }
        // Standard output carries the result lines: an image there would be mixed with them.
        if output == "-" { throw ValidationError("-o - is not taken: standard output carries a line per URL (use `webimage decode - -o -` to convert a piped image)") }
    }

    /// Whether `-o` names a folder: for several URLs or standard input, and for a name
    /// that ends in `/` or is an existing directory whatever the count (as `curl
    /// --output-dir`): one URL into `-o shots/` failed after its download with "is a
    /// directory", and a script's list of one URL wrote a file where a longer list made a
    /// folder.
    var outputIsDirectory: Bool {
        guard let output else { return false }
        if urls.count > 1 || urls.contains("-") || output.hasSuffix("/") { return true }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    func run() async throws {
        let downloader = try batch.makeDownloader()
        let cache = ImageCache(namespace: "default", directory: batch.cacheBase)
        var context = batch.context()
        context.transformer = transform?.transformer
        let job = FetchJob(
            manager: batch.makeManager(cache: cache, downloader: downloader),
            context: context,
            output: output,
            outputIsDirectory: outputIsDirectory,
            raw: raw,
            display: ProgressDisplay(total: urls.contains("-") ? nil : urls.count)
        )
        let started = ContinuousClock.now
        let readError = await job.run(FetchInput(arguments: urls), concurrency: batch.loadsAtOnce)
        let counts = job.display.counts
        job.display.finish("fetched \(counts.done) URLs: loaded \(counts.loaded), failed \(counts.failed), "
            + "\(ProgressDisplay.bytes(counts.bytes)) in \(ProgressDisplay.seconds(ContinuousClock.now - started))")
        try await downloader.shutdown()
        if let readError { try reportingFailures { throw readError } }
        if counts.failed > 0 { throw ExitCode.failure }
    }

    /// One result line: source, size, format, bytes, milliseconds, URL.
    static func line(for result: ImageLoadResult, elapsed: Duration) -> String {
        let size = "\(result.image.size.width)x\(result.image.size.height)"
        let bytes = result.data.map { "\($0.count) B" } ?? "-"
        let frames = result.image.frameCount > 1 ? " \(result.image.frameCount) frames" : ""
        return "\(source(of: result).padding(toLength: 8, withPad: " ", startingAt: 0)) "
            + "\(size.padding(toLength: 11, withPad: " ", startingAt: 0)) "
            + "\(result.image.format.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)) "
            + "\(bytes.padding(toLength: 11, withPad: " ", startingAt: 0)) "
            + "\(Self.elapsedText(elapsed))  \(result.url.absoluteString)\(frames)"
    }

    /// The line of a `--raw` load: as ``line(for:elapsed:)``, with "-" for the size (nothing
    /// was decoded) and "raw" for the format.
    static func rawLine(for result: OriginalDataResult, elapsed: Duration) -> String {
        let bytes = result.byteCount.map { "\($0) B" } ?? "-"
        return "\(source(result.cacheType, url: result.url).padding(toLength: 8, withPad: " ", startingAt: 0)) "
            + "\("-".padding(toLength: 11, withPad: " ", startingAt: 0)) "
            + "\("raw".padding(toLength: 6, withPad: " ", startingAt: 0)) "
            + "\(bytes.padding(toLength: 11, withPad: " ", startingAt: 0)) "
            + "\(Self.elapsedText(elapsed))  \(result.url.absoluteString)"
    }

    /// Where a result came from, in the words the command prints.
    static func source(of result: ImageLoadResult) -> String {
        source(result.cacheType, url: result.url)
    }

    private static func source(_ cacheType: ImageCacheType, url: URL) -> String {
        switch cacheType {
        case .memory, .all: "memory"
        case .disk: "disk"
        case .none: ["http", "https"].contains(url.scheme?.lowercased() ?? "") ? "network" : "loader"
        }
    }

    /// A duration for people: milliseconds, or microseconds below one millisecond (memory
    /// hits), so a fast load never prints as "0.0 ms".
    static func elapsedText(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return milliseconds < 1 ? String(format: "%.0f µs", milliseconds * 1000) : String(format: "%.1f ms", milliseconds)
    }
}
