import ArgumentParser
import Foundation
import WebImage

/// `webimage fetch URL... [--cache-dir DIR] [--thumbnail WxH] [--transform SPEC] [-o OUT]`:
/// loads images through ``ImageManager`` (memory, disk cache, then network) and prints,
/// per URL, where each came from, its size, format and the time it took.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images by URL through the cache and print where each came from.",
        discussion: """
        Each line reads: SOURCE (network, loader, disk or memory), WIDTHxHEIGHT, format, \
        bytes, milliseconds, URL. A URL given twice comes from memory the second time; a \
        second run with the same --cache-dir comes from disk.
        """
    )

    @Argument(help: "The image URLs (http, https, file or data).")
    var urls: [String]

    @Option(name: .customLong("cache-dir"), help: "The cache's parent directory (default: $XDG_CACHE_HOME/swift-web-image).")
    var cacheDirectory: String?

    @Option(help: "Decode to fit inside WxH; cached under its own key.")
    var thumbnail: ImageSize?

    @Option(name: .long, help: "Transformers to apply, e.g. 'resize=256x256,aspectFill;round=12'.", transform: TransformSpec.argument)
    var transform: TransformSpec?

    @Option(name: .shortAndLong, help: "Write the image here (PNG unless the extension names another format); with several URLs, a directory.")
    var output: String?

    @Option(help: "Give up on a request that receives nothing for this many seconds.")
    var timeout: Double = 15

    func validate() throws {
        if urls.isEmpty { throw ValidationError("give at least one URL") }
        if !(timeout > 0) { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        var config = Downloader.Configuration()
        config.timeout = downloaderTimeout(seconds: timeout)
        let downloader = Downloader(config: config)
        let base = cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        let manager = ImageManager(
            cache: ImageCache(namespace: "default", directory: base),
            loader: LoadersManager(loaders: [downloader, FileURLLoader(), DataURLLoader()])
        )
        var context = ImageContext()
        context.thumbnailPixelSize = thumbnail
        context.transformer = transform?.transformer
        var failures = 0
        for (index, text) in urls.enumerated() {
            let start = ContinuousClock.now
            do {
                guard let url = URL(string: text), url.scheme != nil else { throw WebImageError.invalidURL(text) }
                let result = try await manager.loadImage(with: url, options: [.waitStoreCache, .retryFailed], context: context)
                let elapsed = ContinuousClock.now - start
                print(Self.line(for: result, elapsed: elapsed))
                if let output { try write(result.image, to: outputPath(output, index: index, url: url)) }
            } catch {
                failures += 1
                print("failed   \(text): \(error)")
            }
        }
        try await downloader.shutdown()
        if failures > 0 { throw ExitCode.failure }
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

    /// Where a result came from, in the words the command prints.
    static func source(of result: ImageLoadResult) -> String {
        switch result.cacheType {
        case .memory, .all: "memory"
        case .disk: "disk"
        case .none: ["http", "https"].contains(result.url.scheme?.lowercased() ?? "") ? "network" : "loader"
        }
    }

    /// A duration for people: milliseconds, or microseconds below one millisecond (memory
    /// hits), so a fast load never prints as "0.0 ms".
    static func elapsedText(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return milliseconds < 1 ? String(format: "%.0f µs", milliseconds * 1000) : String(format: "%.1f ms", milliseconds)
    }

    private func outputPath(_ output: String, index: Int, url: URL) -> String {
        guard urls.count > 1 else { return output }
        let stem = (url.deletingPathExtension().lastPathComponent as NSString).lastPathComponent
        return URL(fileURLWithPath: output, isDirectory: true).appendingPathComponent("\(index)-\(stem.isEmpty ? "image" : stem).png").path
    }

    private func write(_ image: Image, to path: String) throws {
        if urls.count > 1 {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        }
        let format = ImageFormat(argument: (path as NSString).pathExtension) ?? .png
        var options = ImageCoderOptions()
        options.encodeFirstFrameOnly = !image.isAnimated
        try writeOutput(CodersManager.shared.encode(image, as: format, options: options), to: path)
    }
}
