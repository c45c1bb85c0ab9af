import Foundation
import WebImage

/// What one source came to; the parent task prints it, so lines never interleave.
enum Outcome: Sendable {
    case written(source: String, from: String, size: ImageSize, bytes: Int, file: String, elapsed: Duration)
    case failed(source: String, reason: String, elapsed: Duration)
}

/// Anything with a scheme is a URL (`data:` has no `//`); the rest are paths, resolved
/// against the current directory as a shell user expects.
func sourceURL(_ source: String) -> URL? {
    source.contains("://") || source.hasPrefix("data:") ? URL(string: source) : URL(fileURLWithPath: source)
}

/// `.none` means the loader ran; naming it tells a network fetch from a local file read,
/// whose costs differ by orders of magnitude.
func origin(of result: ImageLoadResult) -> String {
    switch result.cacheType {
    case .memory, .all: "memory"
    case .disk: "disk"
    case .none: result.url.isFileURL ? "file" : "network"
    }
}

func makeThumbnail(index: Int, source: String, manager: ImageManager, options: Options) async -> Outcome {
    let start = ContinuousClock.now
    do {
        guard let url = sourceURL(source) else { throw WebImageError.invalidURL(source) }
        var context = ImageContext()
        // Decoding straight to the thumbnail size (JPEG DCT scaling, WebP scaled decode) is far
        // cheaper than decoding in full and resizing, and the thumbnail gets its own cache key.
        context.thumbnailPixelSize = options.size
        // The process exits as soon as the batch ends: without waiting, the disk cache could
        // miss the last images, and the next run would load them again.
        let result = try await manager.loadImage(with: url, options: [.waitStoreCache], context: context)

        var coderOptions = ImageCoderOptions()
        coderOptions.compressionQuality = options.quality
        let data = try CodersManager.shared.encode(result.image, as: options.format, options: coderOptions)
        // The index keeps names unique when two sources share a file name (a.jpg on two hosts).
        let stem = url.deletingPathExtension().lastPathComponent
        let name = String(format: "%03d-", index + 1) + "\(stem.isEmpty ? "image" : stem).\(options.format.fileExtension ?? "img")"
        let file = options.outputDirectory.appendingPathComponent(name)
        try data.write(to: file, options: .atomic)
        return .written(
            source: source, from: origin(of: result), size: result.image.size,
            bytes: data.count, file: file.path, elapsed: .now - start
        )
    } catch {
        return .failed(source: source, reason: "\(error)", elapsed: .now - start)
    }
}

func milliseconds(_ duration: Duration) -> String {
    String(format: "%.1f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
}

func padded(_ text: String, _ width: Int) -> String {
    text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0)
}

/// Runs the batch and returns how many sources failed.
func runBatch(_ options: Options) async -> Int {
    let manager = ImageManager(cache: ImageCache(namespace: "thumbnails", directory: options.cacheDirectory))
    do {
        try FileManager.default.createDirectory(at: options.outputDirectory, withIntermediateDirectories: true)
    } catch {
        print("cannot create \(options.outputDirectory.path): \(error)")
        return options.sources.count
    }

    let start = ContinuousClock.now
    var counts: [String: Int] = [:]
    await withTaskGroup(of: Outcome.self) { group in
        func report(_ outcome: Outcome) {
            switch outcome {
            case let .written(source, from, size, bytes, file, elapsed):
                counts[from, default: 0] += 1
                print("\(padded(from, 7)) \(padded(size.description, 9)) \(padded(milliseconds(elapsed), 10)) \(source) -> \(file) (\(bytes) B)")
            case let .failed(source, reason, elapsed):
                counts["failed", default: 0] += 1
                print("\(padded("failed", 7)) \(padded("-", 9)) \(padded(milliseconds(elapsed), 10)) \(source): \(reason)")
            }
        }
        // Adding every source at once would start every download at once; waiting for one
        // to finish before adding the next keeps `jobs` in flight, and memory bounded.
        for (index, source) in options.sources.enumerated() {
            if index >= options.jobs, let finished = await group.next() {
                report(finished)
            }
            group.addTask { await makeThumbnail(index: index, source: source, manager: manager, options: options) }
        }
        for await finished in group {
            report(finished)
        }
    }

    let summary = ["network", "file", "disk", "memory", "failed"]
        .compactMap { key in counts[key].map { "\($0) \(key)" } }
        .joined(separator: ", ")
    print("\(options.sources.count) images in \(milliseconds(.now - start)): \(summary)")
    return counts["failed"] ?? 0
}

let parsed: Options?
do {
    parsed = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n\n\(Options.usage)\n".utf8))
    exit(2)
}
guard let options = parsed else {
    print(Options.usage)
    exit(0)
}
exit(await runBatch(options) == 0 ? 0 : 1)
