import Dispatch
import Foundation
import Testing
@testable import WebImage

/// Each ``ImageContext`` field that replaces one of the manager's parts, for one load,
/// through a real manager, cache directory and loopback origin.
@Suite struct ImageManagerContextOverrideTests {
    /// A loader that serves one PNG for any URL and counts its calls.
    final class FixedLoader: ImageLoader {
        let png: Data
        let calls = LockedValue(0)

        init(png: Data) {
            self.png = png
        }

        func canLoad(_ url: URL) -> Bool { true }

        func load(_ url: URL, options: DownloadRequestOptions, progress: LoadProgressHandler?) async throws(WebImageError) -> ImageLoaderOutput {
            calls.withLock { $0 += 1 }
            do {
                return ImageLoaderOutput(image: try CodersManager.shared.decode(png, options: options.decodeOptions), data: png, url: url)
            } catch {
                throw WebImageError(error)
            }
        }
    }

    @Test func imageCacheReplacesTheManagersCache() async throws {
        try await LoopbackServer.with(["/a.png": pngReply(try pngData())]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let directory = try TemporaryDirectory()
                defer { directory.remove() }
                let other = ImageCache(namespace: "other", directory: directory.url)
                var context = ImageContext()
                context.imageCache = other
                let url = server.url("/a.png")
                _ = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
                let key = try #require(manager.cacheKey(for: url))
                #expect(other.imageFromMemoryCache(forKey: key) != nil)
                #expect(other.diskImageData(forKey: key) != nil)
                #expect(await manager.imageCache.containsImage(forKey: key, cacheType: .all) == .none)
                #expect(try await manager.loadImage(with: url, context: context).cacheType == .memory)
                #expect(try await manager.loadImage(with: url).cacheType == .none, "the manager's own cache never saw it")
                #expect(server.requestCount("/a.png") == 2)
            }
        }
    }

    @Test func imageLoaderReplacesTheManagersLoader() async throws {
        try await LoopbackServer.with(["/a.png": .status(404)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let loader = FixedLoader(png: try pngData(width: 7, height: 5))
                var context = ImageContext()
                context.imageLoader = loader
                let result = try await manager.loadImage(with: server.url("/a.png"), context: context)
                #expect(result.image.size == ImageSize(width: 7, height: 5))
                #expect(loader.calls.withLock { $0 } == 1)
                #expect(server.requests.isEmpty)
            }
        }
    }

    @Test func imageCoderDecodesDownloadsFilesDataURLsAndDiskHits() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.adopt(ImageManager(
                    cache: harness.makeCache(),
                    loader: LoadersManager(loaders: [harness.downloader, FileURLLoader(), DataURLLoader()])
                ))
                let file = harness.directoryURL.appendingPathComponent("a-file.png")
                try png.write(to: file)
                let dataURL = try #require(URL(string: "data:image/png;base64," + png.base64EncodedString()))
                let coder = CountingCoder()
                var context = ImageContext()
                context.imageCoder = coder
                for (count, url) in [server.url("/a.png"), file, dataURL].enumerated() {
                    let result = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
                    #expect(result.cacheType == .none)
                    #expect(coder.decodeCount == count + 1, "\(url.scheme ?? "")")
                }
                // A disk hit (a manager with an empty memory level) decodes with it too.
                let cold = harness.adopt(ImageManager(cache: harness.makeCache(), loader: LoadersManager(loaders: [harness.downloader])))
                #expect(try await cold.loadImage(with: server.url("/a.png"), context: context).cacheType == .disk)
                #expect(coder.decodeCount == 4)
            }
        }
    }

    @Test func originalImageCacheKeepsTheOriginalBytesApart() async throws {
        let png = try pngData(width: 80, height: 60)
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let directory = try TemporaryDirectory()
                defer { directory.remove() }
                let originals = ImageCache(namespace: "originals", directory: directory.url)
                var context = ImageContext()
                context.originalImageCache = originals
                context.thumbnailPixelSize = ImageSize(width: 8, height: 8)
                let url = server.url("/a.png")
                let thumbnail = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
                #expect(thumbnail.image.size == ImageSize(width: 8, height: 6))
                let originalKey = try #require(manager.cacheKey(for: url))
                let finalKey = try #require(manager.cacheKey(for: url, context: context))
                #expect(originals.diskImageData(forKey: originalKey) == png)
                #expect(harness.makeCache().diskImageData(forKey: originalKey) == nil)
                #expect(harness.makeCache().diskImageData(forKey: finalKey) != nil)
                // Another size is made from the kept original, without the network.
                context.thumbnailPixelSize = ImageSize(width: 20, height: 20)
                let other = try await manager.loadImage(with: url, context: context)
                #expect(other.cacheType == .disk)
                #expect(other.image.size == ImageSize(width: 20, height: 15))
                #expect(server.requestCount("/a.png") == 1)
            }
        }
    }

    @Test func callbackQueueDeliversEveryCompletionOnIt() async throws {
        try await LoopbackServer.with(["/a.png": pngReply(try pngData()), "/missing.png": .status(404)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let queue = DispatchQueue(label: "callbacks")
                let marker = DispatchSpecificKey<Int>()
                queue.setSpecific(key: marker, value: 7)
                var context = ImageContext()
                context.callbackQueue = queue
                let onQueue = LockedValue<[Bool]>([])
                let completions = ManagerCompletions()
                let record: @Sendable (Result<ImageLoadResult, WebImageError>) -> Void = { result in
                    onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: marker) == 7) }
                    completions.handler(result)
                }
                // A download, a memory hit (delivered before the call returns, still on the
                // queue) and a failure.
                manager.loadImage(with: server.url("/a.png"), options: .waitStoreCache, context: context, progress: nil, completion: record)
                await completions.wait(for: 1)
                manager.loadImage(with: server.url("/a.png"), context: context, progress: nil, completion: record)
                manager.loadImage(with: server.url("/missing.png"), context: context, progress: nil, completion: record)
                await completions.wait(for: 3)
                #expect(onQueue.withLock { $0 } == [true, true, true])
            }
        }
    }

    @Test func requestAndResponseModifiersAndTheDecryptorShapeTheDownload() async throws {
        let png = try pngData()
        let wrapped = Data(png.base64EncodedString().utf8)
        try await LoopbackServer.with(["/a.b64": .status(404, body: wrapped)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                var context = ImageContext()
                context.requestModifier = .headers(["X-Signed": "yes"])
                context.responseModifier = ResponseModifier { response in
                    var response = response
                    response.statusCode = 200
                    return response
                }
                context.decryptor = .base64
                let result = try await manager.loadImage(with: server.url("/a.b64"), options: .waitStoreCache, context: context)
                #expect(result.image.size == ImageSize(width: 40, height: 30))
                #expect(result.data == png, "the decrypted bytes are the result's and the disk cache's")
                #expect(server.requests.last?.header("X-Signed") == "yes")
                #expect(harness.makeCache().diskImageData(forKey: server.url("/a.b64").absoluteString) == png)
                // Without them the same URL is a 404.
                await #expect(throws: WebImageError.invalidDownloadStatusCode(404)) {
                    try await manager.loadImage(with: server.url("/a.b64"), options: .fromLoaderOnly)
                }
            }
        }
    }
}
