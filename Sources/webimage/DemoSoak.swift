import Foundation
import WebImage

/// `webimage demo --soak LOADS`: memory over time. The demo's origin serves the corpus, and
/// one ``ImageManager`` with a small memory limit loads LOADS images cycling over `--soak-urls`
/// distinct URLs, with a thumbnail size and a transform on every load, four at a time. It samples the process's resident memory and open file descriptors after
/// each pass over the URLs and fails unless, at the end, resident memory is within 10 % of
/// what it was after the first pass and no descriptor was left open.
///
/// The corpus has a few dozen files, so the URLs differ in a query parameter
/// (`/NAME?v=K`), which the origin ignores and the manager's cache keys keep: every URL is
/// its own download, disk entry and memory entry. The first pass downloads every URL and
/// stores the original and the transformed thumbnail on disk; later passes find most
/// thumbnails gone from memory (the limit holds a fraction of them) and read them back from
/// disk, so memory, the disk cache's files and the decoders are all exercised again and
/// again; what a leak would show is growth after the first pass.
struct DemoSoak {
    /// What one soak run does.
    struct Configuration {
        /// Loads in all, e.g. 20,000.
        var loads: Int
        /// Distinct URLs the loads cycle over, e.g. 2,000; one pass loads each once.
        var urls: Int
        /// Loads in flight at once.
        var parallel: Int
        /// The memory cache's cost limit in bytes: small, so most later loads go to disk.
        var memoryLimit: Int
        /// The thumbnail box of every load.
        var thumbnail: ImageSize
        /// The transform of every load.
        var transform: TransformSpec
    }

    /// The process's resources at one moment.
    struct Sample {
        let loads: Int
        /// VmRSS, bytes.
        let residentBytes: Int
        /// Entries of /proc/self/fd, less the one the listing itself opens.
        let openFiles: Int

        /// Reads them now (Linux: /proc/self; elsewhere both are 0).
        static func now(after loads: Int) -> Sample {
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            let rssLine = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            let kibibytes = rssLine.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 1
            return Sample(loads: loads, residentBytes: kibibytes * 1024, openFiles: max(0, descriptors - 1))
        }
    }

    let configuration: Configuration

    /// Serves `files`, runs the loads and prints a line per pass and the verdict; throws
    /// `ExitCode.failure`-worthy errors through `SoakFailure` when memory grew or a
    /// descriptor leaked.
    func run(files: [String: Data], cacheDirectory: URL) async throws {
        // Only what this build decodes: a file no coder reads (a JPEG XL, an SVG without librsvg) would fail
        // every pass and measure the failure path instead.
        let names = files.keys.sorted().filter { name in
            files[name].map { (try? CodersManager.shared.decode($0)) != nil } ?? false
        }
        guard !names.isEmpty else { throw SoakFailure(description: "no file of the corpus decodes") }
        let origin = try await DemoOrigin.start(serving: files)
        let downloader = Downloader()
        var cacheConfiguration = ImageCache.Configuration()
        cacheConfiguration.maxMemoryCost = configuration.memoryLimit
        let cache = ImageCache(namespace: "soak", directory: cacheDirectory, config: cacheConfiguration)
        let manager = ImageManager(cache: cache, loader: LoadersManager(loaders: [downloader]))
        var context = ImageContext()
        context.thumbnailPixelSize = configuration.thumbnail
        context.transformer = configuration.transform.transformer
        let urls = (0..<configuration.urls).compactMap { index in
            origin.url(names[index % names.count]).flatMap { URL(string: "\($0.absoluteString)?v=\(index / names.count)") }
        }
        StandardStreams.output("origin  http://127.0.0.1:\(origin.port)/ serving \(names.count) decodable files of \(files.count)\n")
        StandardStreams.output("soak    \(configuration.loads) loads over \(urls.count) URLs (/NAME?v=K), \(configuration.parallel) at a time, "
              + "memory limit \(configuration.memoryLimit / 1024) KiB, thumbnail \(configuration.thumbnail.width)x\(configuration.thumbnail.height), "
              + "transform '\(configuration.transform.text)'\n")

        let before = Sample.now(after: 0)
        StandardStreams.output("before  resident \(Self.mebibytes(before.residentBytes)), open files \(before.openFiles)\n")
        var samples: [Sample] = []
        var tally = Tally()
        let start = ContinuousClock.now
        var done = 0
        while done < configuration.loads {
            let passEnd = min(configuration.loads, done + urls.count)
            tally.add(await load((done..<passEnd).map { urls[$0 % urls.count] }, with: manager, context: context))
            done = passEnd
            let sample = Sample.now(after: done)
            samples.append(sample)
            StandardStreams.output("\(String(format: "%6d", done)) loads  resident \(Self.mebibytes(sample.residentBytes)), open files \(sample.openFiles), "
                  + "\(tally.summary), \(FetchCommand.elapsedText(ContinuousClock.now - start))\n")
        }
        try await downloader.shutdown()
        try await origin.stop()

        guard let first = samples.first, let last = samples.last else { return }
        let growth = Double(last.residentBytes - first.residentBytes) / Double(max(1, first.residentBytes))
        StandardStreams.output(String(format: "result  resident after %d loads %@, after %d loads %@ (%+.1f %%); open files %d then %d\n",
                     first.loads, Self.mebibytes(first.residentBytes), last.loads, Self.mebibytes(last.residentBytes),
                     growth * 100, first.openFiles, last.openFiles))
        var failures: [String] = []
        if growth > 0.10 { failures.append(String(format: "resident memory grew %.1f %% after the first pass (limit 10 %%)", growth * 100)) }
        if last.openFiles > first.openFiles { failures.append("\(last.openFiles - first.openFiles) file descriptor(s) more than after the first pass") }
        if tally.failed > 0 { failures.append("\(tally.failed) load(s) failed") }
        guard failures.isEmpty else { throw SoakFailure(description: failures.joined(separator: "; ")) }
        StandardStreams.output("soak    passed: memory within 10 % of the first pass, no descriptor leaked, no load failed\n")
    }

    /// Loads `urls`, at most ``Configuration/parallel`` at a time.
    private func load(_ urls: [URL], with manager: ImageManager, context: ImageContext) async -> Tally {
        await withTaskGroup(of: Result<ImageLoadResult, any Error>.self) { group in
            var tally = Tally()
            var next = 0
            func startNext() {
                guard next < urls.count else { return }
                let url = urls[next]
                next += 1
                group.addTask {
                    do { return .success(try await manager.loadImage(with: url, options: [.waitStoreCache], context: context)) }
                    catch { return .failure(error) }
                }
            }
            for _ in 0..<configuration.parallel { startNext() }
            while let result = await group.next() {
                tally.count(result)
                startNext()
            }
            return tally
        }
    }

    private static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    /// Loads by where they were answered from.
    struct Tally {
        var network = 0, disk = 0, memory = 0, failed = 0

        mutating func count(_ result: Result<ImageLoadResult, any Error>) {
            switch result.map({ FetchCommand.source(of: $0) }) {
            case .success("network"): network += 1
            case .success("disk"): disk += 1
            case .success: memory += 1
            case .failure: failed += 1
            }
        }

        mutating func add(_ other: Tally) {
            network += other.network; disk += other.disk; memory += other.memory; failed += other.failed
        }

        var summary: String { "network \(network), disk \(disk), memory \(memory), failed \(failed)" }
    }

    /// Why the soak failed: the figures that broke its bounds.
    struct SoakFailure: Error, CustomStringConvertible {
        let description: String
    }
}
