import Foundation
import WebImage

/// The loads of one `webimage fetch`: every URL of a ``FetchInput`` through the manager, at
/// most `concurrency` at once, each reported to the display as it finishes and written to
/// `-o` when asked.
///
/// Two loads of the same URL never run at once: the second waits for the first, so it is
/// served from memory (the command's promise: "a URL given twice comes from memory the
/// second time"), as a sequential run would.
struct FetchJob: Sendable {
    let manager: ImageManager
    let context: ImageContext
    /// `-o`: a file, or a directory (``outputIsDirectory``) receiving `INDEX-NAME.png`.
    let output: String?
    let outputIsDirectory: Bool
    let display: ProgressDisplay

    /// Loads the input's URLs and returns once all are done. Returns the error that stopped
    /// the reading of standard input, if one did (the loads already started still finish).
    func run(_ input: FetchInput, concurrency: Int) async -> (any Error)? {
        await withTaskGroup(of: String.self) { group in
            // The URL texts loading now; never more than `concurrency`, never one twice.
            var loading = Set<String>()
            var readError: (any Error)?
            while true {
                let item: FetchInput.Item?
                do {
                    item = try await input.next()
                } catch {
                    readError = error
                    break
                }
                guard let item else { break }
                switch item {
                case .tooLong(let line):
                    display.failed(line: "failed   standard input line \(line): longer than \(URLListReader.maxLineLength) bytes")
                case .url(let text, let index):
                    while loading.count >= concurrency || loading.contains(text) {
                        if let done = await group.next() { loading.remove(done) }
                    }
                    loading.insert(text)
                    group.addTask {
                        await load(text, index: index)
                        return text
                    }
                }
            }
            await group.waitForAll()
            return readError
        }
    }

    private func load(_ text: String, index: Int) async {
        let start = ContinuousClock.now
        do {
            guard let url = URL(string: text), url.scheme != nil else { throw WebImageError.invalidURL(text) }
            let result = try await manager.loadImage(with: url, options: [.waitStoreCache, .retryFailed], context: context)
            let elapsed = ContinuousClock.now - start
            if let output {
                let path = outputPath(output, index: index, url: url)
                let image = result.image
                let isDirectory = outputIsDirectory
                try await BlockingIO.run { try Self.write(image, to: path, creatingDirectory: isDirectory) }
            }
            display.loaded(bytes: result.data?.count ?? 0, line: FetchCommand.line(for: result, elapsed: elapsed))
        } catch {
            display.failed(line: "failed   \(text): \(error)")
        }
    }

    private func outputPath(_ output: String, index: Int, url: URL) -> String {
        guard outputIsDirectory else { return output }
        let stem = (url.deletingPathExtension().lastPathComponent as NSString).lastPathComponent
        return URL(fileURLWithPath: output, isDirectory: true).appendingPathComponent("\(index)-\(stem.isEmpty ? "image" : stem).png").path
    }

    private static func write(_ image: Image, to path: String, creatingDirectory: Bool) throws {
        if creatingDirectory {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        }
        let format = ImageFormat(argument: (path as NSString).pathExtension) ?? .png
        var options = ImageCoderOptions()
        options.encodeFirstFrameOnly = !image.isAnimated
        try writeOutput(CodersManager.shared.encode(image, as: format, options: options), to: path)
    }
}
