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
    /// `--raw`: store and write the original bytes, never decoding them.
    let raw: Bool
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
            if raw { return try await loadRaw(url, index: index, start: start) }
            let result = try await manager.loadImage(with: url, options: [.waitStoreCache, .retryFailed], context: context)
            let elapsed = ContinuousClock.now - start
            if let output {
                let path = outputPath(output, index: index, url: url)
                let image = result.image
                let isDirectory = outputIsDirectory
                let quality = context.imageEncodeOptions?.compressionQuality ?? 1
                try await BlockingIO.run { try Self.write(image, to: path, creatingDirectory: isDirectory, quality: quality) }
            }
            display.loaded(bytes: result.data?.count ?? 0, line: FetchCommand.line(for: result, elapsed: elapsed))
        } catch {
            display.failed(line: "failed   \(text): \(describe(error))")
        }
    }

    /// `--raw`: the original bytes into the disk cache (streamed as they arrive), then
    /// copied to `-o` from the cache entry, so neither step holds the whole body in memory.
    private func loadRaw(_ url: URL, index: Int, start: ContinuousClock.Instant) async throws {
        let result = try await manager.loadOriginalData(with: url, options: [.waitStoreCache, .retryFailed], context: context)
        let elapsed = ContinuousClock.now - start
        if let output {
            // A load that could not stream (a file: or data: URL) stored the bytes under the
            // same key through the decoding path.
            let disk = (manager.imageCache as? ImageCache)?.diskCache
            guard let entry = result.fileURL ?? manager.cacheKey(for: url, context: context).flatMap({ disk?.fileURL(forKey: $0) }) else {
                throw WebImageError.notInCache
            }
            let path = outputPath(output, index: index, url: url, fileExtension: url.pathExtension.isEmpty ? "bin" : url.pathExtension)
            let isDirectory = outputIsDirectory
            try await BlockingIO.run { try Self.copy(entry, to: path, creatingDirectory: isDirectory) }
        }
        display.loaded(bytes: result.byteCount ?? 0, line: FetchCommand.rawLine(for: result, elapsed: elapsed))
    }

    private func outputPath(_ output: String, index: Int, url: URL, fileExtension: String = "png") -> String {
        guard outputIsDirectory else { return output }
        return URL(fileURLWithPath: output, isDirectory: true).appendingPathComponent(Self.fileName(index: index, url: url, fileExtension: fileExtension)).path
    }

    /// `INDEX-STEM.EXT` for `url`'s file in an output folder, STEM being the URL's last path
    /// component without its extension. Made a file name whatever the URL: without `/` or
    /// NUL (`http://h/` has the last component "/"), `image` when nothing is left or only
    /// `.` or `..`, and the stem cut (at a character) to 200 bytes and the extension to 16,
    /// under Linux's 255-byte name limit.
    static func fileName(index: Int, url: URL, fileExtension: String) -> String {
        func cleaned(_ text: String, maximumBytes: Int) -> String {
            var kept = ""
            for character in text where character != "/" && character != "\0" {
                guard kept.utf8.count + character.utf8.count <= maximumBytes else { break }
                kept.append(character)
            }
            return kept
        }
        var stem = cleaned(url.deletingPathExtension().lastPathComponent, maximumBytes: 200)
        if stem.isEmpty || stem == "." || stem == ".." { stem = "image" }
        let ext = cleaned(fileExtension, maximumBytes: 16)
        return "\(index)-\(stem).\(ext.isEmpty ? "bin" : ext)"
    }

    /// Copies `file` to `path` (see ``OutputFile``), in buffers, never whole.
    private static func copy(_ file: URL, to path: String, creatingDirectory: Bool) throws {
        if creatingDirectory { try createDirectory(of: path) }
        try OutputFile(path: path).copy(from: file)
    }

    /// The folder that receives `path` when `-o` names a directory, created if missing.
    private static func createDirectory(of path: String) throws {
        try FileManager.default.createDirectory(atPath: OutputFile.directory(of: path), withIntermediateDirectories: true)
    }

    /// Encodes `image` as `path`'s extension names, at `quality` (0-1: `--quality`, as
    /// the cache's own encodes; a file written at 100 was several times the cached one)
    /// when the format is lossy.
    private static func write(_ image: Image, to path: String, creatingDirectory: Bool, quality: Double) throws {
        if creatingDirectory { try createDirectory(of: path) }
        // The extension names the format; one that names none is refused rather than
        // written as PNG bytes under a name that says otherwise.
        let fileExtension = (path as NSString).pathExtension
        guard let format = fileExtension.isEmpty ? .png : EncodableFormat(argument: fileExtension)?.format else {
            let names = EncodableFormat.allValueStrings.map { "." + $0 }.joined(separator: ", ")
            throw InputFileError(reason: "\(path): .\(fileExtension) names no image format this command writes (use one of \(names))")
        }
        var options = ImageCoderOptions()
        options.encodeFirstFrameOnly = !image.isAnimated
        // Not GIF's palette size, nor the lossless formats (see ImageFormat.qualityFormats).
        if ImageFormat.qualityFormats.contains(format) { options.compressionQuality = quality }
        try OutputFile(path: path).write(CodersManager.shared.encode(image, as: format, options: options))
    }
}
