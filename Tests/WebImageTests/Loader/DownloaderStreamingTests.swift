import Foundation
import Testing
@testable import WebImage

/// Downloads that need no decode stream into a disk-cache entry as they arrive
/// (``Downloader/downloadFile(with:to:options:progress:completion:)``,
/// ``ImageManager/loadOriginalData(with:options:context:progress:)``, the prefetcher's
/// `.diskCache` destination): the entry holds exactly the source's bytes, and a failure,
/// a cancellation or a bad status leaves nothing in the directory, not even a temporary
/// file. Real loopback servers, real directories.
@Suite struct DownloaderStreamingTests {
    /// `count` pseudo-random bytes (not an image: nothing here may need a decode).
    static func bytes(_ count: Int, seed: UInt64 = 15) -> Data {
        var generator = SplitMix64(seed: seed)
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt8.self)
            var index = 0
            while index < words.count {
                var word = generator.next()
                for _ in 0..<8 where index < words.count {
                    words[index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    index += 1
                }
            }
        }
        return data
    }

    /// Every name in `directory`, hidden ones (temporary files, sidecars) included.
    static func allNames(_ directory: URL) -> [String] {
        FileIO.names(in: directory.path)
    }

    static func load(_ url: URL, into disk: DiskCache, key: String, with downloader: Downloader) async -> Result<DownloadedFile, WebImageError> {
        do {
            return .success(try await downloader.loadFile(from: url, to: DiskCacheEntryDestination(cache: disk, key: key)))
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: ["length", "chunked"])
    func aLargeBodyStreamsIntoTheCacheEntryUnchanged(framing: String) async throws {
        let body = Self.bytes(20 * 1024 * 1024)
        let reply: LoopbackServer.Reply = framing == "length" ? .ok(body) : .chunked(body, chunkSize: 100_000)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        try await LoopbackServer.with(["/big.bin": reply]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let url = server.url("/big.bin")
                let file = try await Self.load(url, into: disk, key: url.absoluteString, with: downloader).get()
                #expect(file.byteCount == body.count)
                #expect(file.fileURL == disk.fileURL(forKey: url.absoluteString))
                #expect(disk.data(forKey: url.absoluteString) == body)
                // The entry got the creation date a normal store records, and no temporary file is left.
                #expect(disk.recordedCreationDate(path: file.fileURL.path) != nil)
                #expect(Self.allNames(directory.url) == [DiskCache.fileName(forKey: url.absoluteString)])
            }
        }
    }

    /// From a task already cancelled, no request is sent: the download used to start and be
    /// cancelled at once.
    @Test func aTaskCancelledBeforehandSendsNoRequest() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        try await LoopbackServer.with(["/a.bin": .ok(Self.bytes(1_000))]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let url = server.url("/a.bin")
                let result = await Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return await Self.load(url, into: disk, key: url.absoluteString, with: downloader)
                }.value
                guard case .failure(.cancelled) = result else {
                    Issue.record("the download gave \(result)")
                    return
                }
                // Long enough for a request already sent to arrive.
                try await Task.sleep(for: .milliseconds(200))
                #expect(server.requestCount("/a.bin") == 0)
            }
        }
    }

    @Test func aBodyOverTheLimitFailsAndLeavesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        // Chunked, so the limit is met mid-body rather than refused at the head.
        try await LoopbackServer.with(["/big.bin": .chunked(Self.bytes(3 * 1024 * 1024), chunkSize: 64 * 1024)]) { server in
            let config = LoaderTesting.config { $0.maximumResponseSize = 1024 * 1024 }
            try await LoaderTesting.withDownloader(config) { downloader in
                let url = server.url("/big.bin")
                let result = await Self.load(url, into: disk, key: url.absoluteString, with: downloader)
                #expect(throws: WebImageError.responseTooLarge(limit: 1024 * 1024)) { try result.get() }
                let reached1 = await waitUntil { Self.allNames(directory.url).isEmpty }
                #expect(reached1, "\(Self.allNames(directory.url))")
            }
        }
    }

    @Test func aConnectionDroppedMidBodyLeavesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        let body = Self.bytes(4 * 1024 * 1024)
        try await LoopbackServer.with(["/cut.bin": .resetMidBody(body, after: 2 * 1024 * 1024)]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let url = server.url("/cut.bin")
                let result = await Self.load(url, into: disk, key: url.absoluteString, with: downloader)
                #expect(throws: WebImageError.self) { try result.get() }
                let reached2 = await waitUntil { Self.allNames(directory.url).isEmpty }
                #expect(reached2, "\(Self.allNames(directory.url))")
                #expect(disk.data(forKey: url.absoluteString) == nil)
            }
        }
    }

    @Test func aNotFoundLeavesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        try await LoopbackServer.with(["/gone.bin": .status(404, body: Data(repeating: 7, count: 1000))]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let url = server.url("/gone.bin")
                let result = await Self.load(url, into: disk, key: url.absoluteString, with: downloader)
                #expect(throws: WebImageError.invalidDownloadStatusCode(404)) { try result.get() }
                #expect(Self.allNames(directory.url).isEmpty)
            }
        }
    }

    @Test func aCancelledLoadLeavesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        let gate = ReplyGate()
        defer { gate.open() }
        let body = Self.bytes(2 * 1024 * 1024)
        let reply = LoopbackServer.Reply.gated(body, firstPart: 1024 * 1024, gate: gate, interval: .milliseconds(20), contentType: "application/octet-stream")
        try await LoopbackServer.with(["/slow.bin": reply]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let url = server.url("/slow.bin")
                let outcome = LockedValue<Result<DownloadedFile, WebImageError>?>(nil)
                let token = downloader.downloadFile(with: url, to: DiskCacheEntryDestination(cache: disk, key: url.absoluteString)) { result in
                    outcome.withLock { $0 = result }
                }
                // The body is streaming: its temporary file exists.
                let reached3 = await waitUntil { Self.allNames(directory.url).contains { $0.hasPrefix(FileIO.temporaryPrefix) } }
                #expect(reached3)
                token?.cancel()
                let reached4 = await waitUntil { outcome.withLock { $0 } != nil }
                #expect(reached4)
                #expect(throws: WebImageError.cancelled) { try outcome.withLock { $0 }?.get() }
                let reached5 = await waitUntil { Self.allNames(directory.url).isEmpty }
                #expect(reached5, "\(Self.allNames(directory.url))")
            }
        }
    }

    /// A caller wanting the image joins a download already streaming to a file: one
    /// request serves both; the image is decoded from the committed file.
    @Test func aDecodedCallerJoiningAStreamingDownloadGetsItsImage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        // 11.6 kB: its second half can trickle for longer than the gate's hold. (A 300x200
        // image of one colour compressed to 0.7 kB, whose trickle ran out after 7 s and
        // ended the body before a starved test had joined.)
        let png = try Corpus.data("TestImage.png")
        let gate = ReplyGate()
        defer { gate.open() }
        let reply = LoopbackServer.Reply.gated(png, firstPart: png.count / 2, gate: gate, interval: .milliseconds(20), contentType: "image/png")
        try await LoopbackServer.with(["/a.png": reply]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let url = server.url("/a.png")
                let stored = LockedValue<Result<DownloadedFile, WebImageError>?>(nil)
                let decoded = LockedValue<Result<ImageLoaderOutput, WebImageError>?>(nil)
                downloader.downloadFile(with: url, to: DiskCacheEntryDestination(cache: disk, key: url.absoluteString)) { result in
                    stored.withLock { $0 = result }
                }
                let reached6 = await waitUntil { Self.allNames(directory.url).contains { $0.hasPrefix(FileIO.temporaryPrefix) } }
                #expect(reached6)
                // Registered before this call returns; the body is held back until the gate opens.
                downloader.downloadImage(with: url) { result in decoded.withLock { $0 = result } }
                gate.open()
                let reached7 = await waitUntil { stored.withLock { $0 } != nil && decoded.withLock { $0 } != nil }
                #expect(reached7)
                let image = try #require(decoded.withLock { $0 }).get().image
                let file = try #require(stored.withLock { $0 }).get()
                #expect(image.size == ImageSize(width: 300, height: 300))
                #expect(file.byteCount == png.count)
                #expect(disk.data(forKey: url.absoluteString) == png)
                #expect(server.requestCount("/a.png") == 1)
            }
        }
    }

    /// Callers that join a download already streaming to one cache entry and want the bytes
    /// in memory, or in another entry, get them read back or copied from the committed
    /// file; one request serves all three.
    @Test func bytesAndSecondFileCallersJoiningAStreamingDownloadGetTheirCopies() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        let body = Self.bytes(600_000)
        let gate = ReplyGate()
        defer { gate.open() }
        let reply = LoopbackServer.Reply.gated(body, firstPart: 300_000, gate: gate, interval: .milliseconds(20), contentType: "image/jpeg")
        try await LoopbackServer.with(["/a.jpg": reply]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let url = server.url("/a.jpg")
                let first = LockedValue<Result<DownloadedFile, WebImageError>?>(nil)
                let second = LockedValue<Result<DownloadedFile, WebImageError>?>(nil)
                let bytes = LockedValue<Result<DownloadedData, WebImageError>?>(nil)
                downloader.downloadFile(with: url, to: DiskCacheEntryDestination(cache: disk, key: "first")) { result in first.withLock { $0 = result } }
                let streaming = await waitUntil { Self.allNames(directory.url).contains { $0.hasPrefix(FileIO.temporaryPrefix) } }
                #expect(streaming)
                downloader.downloadFile(with: url, to: DiskCacheEntryDestination(cache: disk, key: "second")) { result in second.withLock { $0 = result } }
                downloader.downloadData(with: url) { result in bytes.withLock { $0 = result } }
                gate.open()
                try #require(await waitUntil { first.withLock { $0 } != nil && second.withLock { $0 } != nil && bytes.withLock { $0 } != nil })
                #expect(try #require(first.withLock { $0 }).get().byteCount == body.count)
                #expect(try #require(second.withLock { $0 }).get().fileURL == disk.fileURL(forKey: "second"))
                #expect(try #require(bytes.withLock { $0 }).get().data == body)
                #expect(disk.data(forKey: "first") == body)
                #expect(disk.data(forKey: "second") == body)
                #expect(server.requestCount("/a.jpg") == 1)
            }
        }
    }

    /// A file caller joining a download that keeps its body in memory (a decoded caller
    /// was first) still gets its file; one request serves both.
    @Test func aFileCallerJoiningAnInMemoryDownloadGetsItsFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        // 11.6 kB: its second half can trickle for longer than the gate's hold. (A 300x200
        // image of one colour compressed to 0.7 kB, whose trickle ran out after 7 s and
        // ended the body before a starved test had joined.)
        let png = try Corpus.data("TestImage.png")
        let gate = ReplyGate()
        defer { gate.open() }
        let reply = LoopbackServer.Reply.gated(png, firstPart: png.count / 2, gate: gate, interval: .milliseconds(20), contentType: "image/png")
        try await LoopbackServer.with(["/a.png": reply]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let url = server.url("/a.png")
                let stored = LockedValue<Result<DownloadedFile, WebImageError>?>(nil)
                let decoded = LockedValue<Result<ImageLoaderOutput, WebImageError>?>(nil)
                downloader.downloadImage(with: url) { result in decoded.withLock { $0 = result } }
                try await server.waitForRequests(1)
                downloader.downloadFile(with: url, to: DiskCacheEntryDestination(cache: disk, key: url.absoluteString)) { result in
                    stored.withLock { $0 = result }
                }
                gate.open()
                let reached8 = await waitUntil { stored.withLock { $0 } != nil && decoded.withLock { $0 } != nil }
                #expect(reached8)
                let image = try #require(decoded.withLock { $0 }).get().image
                let file = try #require(stored.withLock { $0 }).get()
                #expect(image.size == ImageSize(width: 300, height: 300))
                #expect(file.byteCount == png.count)
                #expect(disk.data(forKey: url.absoluteString) == png)
                #expect(server.requestCount("/a.png") == 1)
                #expect(!Self.allNames(directory.url).contains { $0.hasPrefix(FileIO.temporaryPrefix) })
            }
        }
    }

    /// The manager's undecoded load stores the original where a later image load finds it,
    /// and a second call is a disk hit with no request.
    @Test func loadOriginalDataStoresTheEntryAnImageLoadReads() async throws {
        let png = try pngData(width: 64, height: 48)
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                let url = server.url("/a.png")
                let first = try await manager.loadOriginalData(with: url)
                #expect(first.cacheType == .none && first.byteCount == png.count)
                #expect(cache.diskCache.data(forKey: url.absoluteString) == png)
                #expect(cache.imageFromMemoryCache(forKey: url.absoluteString) == nil)  // nothing decoded
                let second = try await manager.loadOriginalData(with: url)
                #expect(second.cacheType == .disk && second.byteCount == png.count)
                let image = try await manager.loadImage(with: url)
                #expect(image.cacheType == .disk && image.image.size == ImageSize(width: 64, height: 48))
                #expect(server.requestCount("/a.png") == 1)
            }
        }
    }

    static func loadOriginal(_ url: URL, with manager: ImageManager) async -> Result<OriginalDataResult, WebImageError> {
        do {
            return .success(try await manager.loadOriginalData(with: url))
        } catch {
            return .failure(error)
        }
    }

    /// The manager tracks undecoded loads like image loads: `cancelAll()` stops one mid-body,
    /// and its temporary file goes.
    @Test func cancelAllStopsAnOriginalDataLoadAndLeavesNothing() async throws {
        let gate = ReplyGate()
        defer { gate.open() }
        let reply = LoopbackServer.Reply.gated(Self.bytes(2 * 1024 * 1024), firstPart: 1024 * 1024, gate: gate, interval: .milliseconds(20), contentType: "image/jpeg")
        try await LoopbackServer.with(["/slow.jpg": reply]) { server in
            try await ManagerHarness.with { harness in
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                let url = server.url("/slow.jpg")
                async let load = Self.loadOriginal(url, with: manager)
                let directory = cache.diskCache.directory
                let streaming = await waitUntil { Self.allNames(directory).contains { $0.hasPrefix(FileIO.temporaryPrefix) } }
                #expect(streaming)
                manager.cancelAll()
                let result = await load
                #expect(throws: WebImageError.cancelled) { try result.get() }
                let drained = await waitUntil { Self.allNames(directory).isEmpty }
                #expect(drained, "\(Self.allNames(directory))")
                #expect(!manager.isRunning)
            }
        }
    }

    /// The prefetcher's `.diskCache` destination stores bytes that are not even an image.
    @Test func thePrefetcherDiskCacheDestinationStoresOriginalsUndecoded() async throws {
        let bodies = (0..<4).map { Self.bytes(300_000 + $0, seed: UInt64($0)) }
        let routes = Dictionary(uniqueKeysWithValues: bodies.enumerated().map { ("/\($0.offset).bin", LoopbackServer.Reply.ok($0.element)) })
        try await LoopbackServer.with(routes) { server in
            try await ManagerHarness.with { harness in
                let cache = harness.makeCache()
                let stored = LockedValue(0)
                let prefetcher = Prefetcher(manager: harness.makeManager(cache: cache), destination: .diskCache, dataLoadHandler: { _, result in
                    if case .success = result { stored.withLock { $0 += 1 } }
                })
                let urls = bodies.indices.map { server.url("/\($0).bin") }
                let result = await prefetcher.prefetch(urls: urls)
                #expect(result == PrefetchResult(finished: 4, skipped: 0, total: 4))
                #expect(stored.withLock { $0 } == 4)
                for (url, body) in zip(urls, bodies) { #expect(cache.diskCache.data(forKey: url.absoluteString) == body) }
            }
        }
    }
}
