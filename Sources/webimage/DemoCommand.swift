import ArgumentParser
import Foundation
import WebImage

/// `webimage demo [--corpus DIR] [--thumbnail WxH]`: the whole system on one machine with
/// no set-up. Serves a directory of images from a local origin on 127.0.0.1, loads every
/// image cold (network), again with a new manager over the same disk cache (disk) and
/// again with the same manager (memory), prints a table of sources and timings, and
/// removes its temporary cache.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve the bundled image corpus locally and load it cold, from disk and from memory."
    )

    @Option(help: "The images to serve (default: $WEBIMAGE_CORPUS, else Corpus/sdwebimage in the current directory, as in a clone).")
    var corpus: String?

    @Option(help: "Load thumbnails that fit WxH instead of full-size images (with --soak, default 128x128).")
    var thumbnail: ImageSize?

    @Option(help: "Instead of the table, a soak: LOADS loads cycling over --soak-urls URLs through one manager, printing resident memory and open files (make soak).")
    var soak: Int?

    @Option(name: .customLong("soak-urls"), help: "With --soak: the distinct URLs the loads cycle over.")
    var soakURLs = 2000

    @Option(help: "With --soak: the memory cache's limit in MiB.")
    var soakMemoryLimit = 8

    @Option(help: "With --soak: the transform of every load.", transform: TransformSpec.argument)
    var soakTransform: TransformSpec?

    /// One image's three loads.
    struct Row {
        let name: String
        var cells: [Result<(ImageLoadResult, Duration), WebImageError>] = []
    }

    func run() async throws {
        try await reportingAsyncFailures {
            let directory = try corpusDirectory()
            let files = try Self.readFiles(in: directory)
            guard !files.isEmpty else { throw ValidationError("no files in \(directory.path)") }
            if let soak {
                try await runSoak(loads: soak, files: files)
                return
            }
            let origin = try await DemoOrigin.start(serving: files)
            let cacheDirectory = FileManager.default.temporaryDirectory
                .appendingPathComponent("webimage-demo-\(UUID().uuidString)", isDirectory: true)
            // The corpus is the repository's own: its SVG and PDF are trusted documents, so
            // the demo decodes them as the file commands do (the library's shared coders
            // leave both out).
            var downloads = Downloader.Configuration()
            downloads.coder = fileCoders
            let downloader = Downloader(config: downloads)
            let interrupt = InterruptCleanup(removing: cacheDirectory)
            defer {
                interrupt.cancel()
                try? FileManager.default.removeItem(at: cacheDirectory)
            }
            StandardStreams.output("origin  http://127.0.0.1:\(origin.port)/ serving \(files.count) files from \(directory.path)\n")
            StandardStreams.output("cache   \(cacheDirectory.path) (removed afterwards)\n")
            StandardStreams.output("\n")

            let names = files.keys.sorted()
            var rows = names.map { Row(name: $0) }
            var context = ImageContext()
            context.thumbnailPixelSize = thumbnail
            let loader = LoadersManager(loaders: [downloader])
            let cold = ImageManager(cache: ImageCache(namespace: "demo", directory: cacheDirectory, coder: fileCoders), loader: loader)
            let warm = ImageManager(cache: ImageCache(namespace: "demo", directory: cacheDirectory, coder: fileCoders), loader: loader)
            var totals: [Duration] = []
            for manager in [cold, warm, warm] {
                let passStart = ContinuousClock.now
                for index in rows.indices {
                    rows[index].cells.append(await Self.load(names[index], from: origin, with: manager, context: context))
                }
                totals.append(ContinuousClock.now - passStart)
            }
            try await downloader.shutdown()
            try await origin.stop()
            StandardStreams.output(Self.table(rows, totals: totals) + "\n")
            // The table says which loads failed; the status says that one did, as fetch's does.
            let failed = rows.filter { $0.cells.contains { if case .failure = $0 { true } else { false } } }.count
            if failed > 0 {
                StandardStreams.error("webimage: \(failed) of \(rows.count) images failed to load\n")
                throw ExitCode.failure
            }
        }
    }

    /// The soak's numbers, checked before anything runs (a usage error, status 64). The URLs
    /// are made up front and the limit is multiplied into bytes: both are bounded, so a
    /// mistyped number is refused rather than an overflow trap or gigabytes of URLs.
    func validate() throws {
        guard (soak ?? 1) > 0, soakURLs > 0, soakMemoryLimit > 0 else {
            throw ValidationError("--soak, --soak-urls and --soak-memory-limit must be positive")
        }
        guard soakURLs <= Self.maximumSoakURLs, soakMemoryLimit <= Self.maximumSoakMemoryLimit else {
            throw ValidationError("--soak-urls may be at most \(Self.maximumSoakURLs), --soak-memory-limit at most \(Self.maximumSoakMemoryLimit) (MiB)")
        }
        // The verdict compares memory after the first pass over the URLs with memory at
        // the end: with one pass there is nothing to compare, and it always passed.
        if let soak, soak < 2 * soakURLs {
            throw ValidationError("--soak must be at least twice --soak-urls (\(2 * soakURLs)): the memory after the first pass is compared with the memory at the end")
        }
    }

    /// The most distinct URLs a soak cycles over (each made before the first load).
    static let maximumSoakURLs = 1_000_000
    /// The largest memory limit of a soak, in MiB (a tebibyte).
    static let maximumSoakMemoryLimit = 1 << 20

    /// `--soak`: ``DemoSoak`` over the files, in a temporary cache removed afterwards.
    private func runSoak(loads: Int, files: [String: Data]) async throws {
        let cacheDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-soak-\(UUID().uuidString)", isDirectory: true)
        let interrupt = InterruptCleanup(removing: cacheDirectory)
        defer {
            interrupt.cancel()
            try? FileManager.default.removeItem(at: cacheDirectory)
        }
        let configuration = DemoSoak.Configuration(
            loads: loads, urls: soakURLs, parallel: 4, memoryLimit: soakMemoryLimit * 1_048_576,
            thumbnail: thumbnail ?? ImageSize(width: 128, height: 128),
            transform: try soakTransform ?? TransformSpec("resize=96x96,aspectFill;round=12"))
        try await DemoSoak(configuration: configuration).run(files: files, cacheDirectory: cacheDirectory)
    }

    /// Loads one image, timing it.
    static func load(_ name: String, from origin: DemoOrigin, with manager: ImageManager, context: ImageContext) async
        -> Result<(ImageLoadResult, Duration), WebImageError> {
        guard let url = origin.url(name) else { return .failure(.invalidURL(name)) }
        let start = ContinuousClock.now
        do {
            let result = try await manager.loadImage(with: url, options: [.waitStoreCache, .retryFailed], context: context)
            return .success((result, ContinuousClock.now - start))
        } catch {
            return .failure(error)
        }
    }

    /// The table: one row per file, one column per pass, then the totals.
    static func table(_ rows: [Row], totals: [Duration]) -> String {
        let headers = ["cold", "new manager", "same manager"]
        var lines = [pad("file", 30) + pad("format", 7) + pad("size", 11) + headers.map { pad($0, 20) }.joined()]
        lines.append(String(repeating: "-", count: lines[0].count))
        for row in rows {
            guard case .success((let first, _))? = row.cells.first else {
                if case .failure(let error)? = row.cells.first { lines.append(pad(row.name, 30) + "failed: \(error)") }
                continue
            }
            let size = "\(first.image.size.width)x\(first.image.size.height)"
            var line = pad(row.name, 30) + pad(first.image.format.rawValue, 7) + pad(size, 11)
            for cell in row.cells {
                switch cell {
                case .success((let result, let elapsed)):
                    line += pad("\(FetchCommand.source(of: result)) \(FetchCommand.elapsedText(elapsed))", 20)
                case .failure(let error):
                    line += pad("failed (\(error))", 20)
                }
            }
            lines.append(line)
        }
        lines.append(String(repeating: "-", count: lines[0].count))
        lines.append(pad("total", 48) + totals.map { pad(FetchCommand.elapsedText($0), 20) }.joined())
        let sources = (0..<totals.count).map { pass in
            Dictionary(grouping: rows.compactMap { try? $0.cells[pass].get().0 }, by: { FetchCommand.source(of: $0) })
                .map { "\($0.value.count) \($0.key)" }.sorted().joined(separator: ", ")
        }
        lines.append(pad("sources", 48) + sources.map { pad($0, 20) }.joined())
        return lines.joined(separator: "\n")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }

    /// The corpus: `--corpus`, else `$WEBIMAGE_CORPUS`, else `Corpus/sdwebimage` from the
    /// current directory, where a clone of the repository keeps SDWebImage's test images.
    /// A folder named with `--corpus` is the only one looked at: a mistyped one is an
    /// error, not a quiet fall-back to another folder.
    private func corpusDirectory() throws -> URL {
        var isDirectory: ObjCBool = false
        if let corpus, !corpus.isEmpty {
            guard FileManager.default.fileExists(atPath: corpus, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--corpus \(corpus): no such folder")
            }
            return URL(fileURLWithPath: corpus, isDirectory: true)
        }
        let candidates = [ProcessInfo.processInfo.environment["WEBIMAGE_CORPUS"], "Corpus/sdwebimage"]
            .compactMap { $0 }.filter { !$0.isEmpty }
        for path in candidates where FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        throw ValidationError("no image folder found; pass --corpus DIR (a clone of swift-web-image has Corpus/sdwebimage)")
    }

    /// Every regular file directly in `directory` but the README.
    static func readFiles(in directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where !name.hasPrefix(".") && !name.hasSuffix(".md") {
            let url = directory.appendingPathComponent(name)
            // Regular files only (through links): a FIFO, socket or device would fail the read.
            var info = stat()
            guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            files[name] = try Data(contentsOf: url)
        }
        return files
    }
}

/// ``reportingFailures(_:)`` for `async` commands.
func reportingAsyncFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch let error as ValidationError {
        StandardStreams.error("webimage: error: \(error.message)\n")
        throw ExitCode.failure
    } catch {
        StandardStreams.error("webimage: error: \(error)\n")
        throw ExitCode.failure
    }
}
