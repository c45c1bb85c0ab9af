import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// The result and source caches through a real server: hits skip the origin and are
/// counted by level, the cache key follows the URL (cachebuster included) and the
/// negotiated format, and the disk level outlives the server.
@Suite struct ImageServerCacheTests {
    static let png = Result { try ServerImages.quadrantsPNG(width: 64, height: 32) }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-server-cache-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A disk level is bounded (`WEBIMAGE_CACHE_DISK_SIZE`): what earlier runs left over the
    /// size is trimmed to half when the server starts, oldest first, and every ten minutes
    /// after. It used to grow without end.
    @Test func aDiskLevelIsTrimmedToItsSizeWhenTheServerStarts() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let previousRun = DiskCache(directory: directory)
        // Whole 8 KiB of noise: the limit counts allocated blocks, which are then the entries'
        // sizes (noise, so that a compressing file system allocates them too).
        for index in 0..<10 {
            let noise = Self.noise(8_192, seed: UInt64(index))
            let description = ByteCache.StoredDescription(of: ByteCache.Entry(data: noise, format: .png))
            try previousRun.setData(noise, forKey: "result-\(index)", extendedData: description.encoded)
            // A minute apart, result-9 the newest: trimming goes oldest first.
            let written = Date(timeIntervalSinceNow: Double(index - 10) * 60)
            try FileManager.default.setAttributes([.modificationDate: written], ofItemAtPath: previousRun.fileURL(forKey: "result-\(index)").path)
        }
        #expect(previousRun.totalSize == 81_920)

        var limits = DiskCache.Configuration()
        limits.maxSize = 32_768
        limits.cleanupInterval = ByteCache.diskCleanupInterval
        let cache = ByteCache(levels: .disk, directory: directory, memoryLimit: 1 << 20, disk: limits)
        let deadline = ContinuousClock.now + TestTime.prompt
        while previousRun.totalSize > 16_384, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(previousRun.totalSize <= 16_384)
        #expect(cache.diskEntry(forKey: "result-9") != nil, "the newest entries stay")
    }

    /// Between the ten-minute checks, writing a quarter of the limit starts a check: the
    /// level stays near its limit however fast results arrive. It used to grow by all
    /// that arrived in ten minutes (tens of gigabytes over a 1 GiB limit under load).
    @Test func aDiskLevelIsCheckedAsItIsWrittenNotOnlyEveryTenMinutes() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var limits = DiskCache.Configuration()
        // Whole 8 KiB entries of noise: the limit counts allocated blocks, which are then
        // their sizes.
        limits.maxSize = 40_960
        limits.cleanupInterval = ByteCache.diskCleanupInterval
        let cache = ByteCache(levels: .disk, directory: directory, memoryLimit: 1 << 20, disk: limits)
        let view = DiskCache(directory: directory)
        for index in 0..<20 {
            #expect(cache.store(ByteCache.Entry(data: Self.noise(8_192, seed: UInt64(index)), format: .png), forKey: "result-\(index)"))
        }
        _ = await waitUntil(.seconds(30)) { view.totalSize <= 51_200 }
        #expect(view.totalSize <= 51_200, "\(view.totalSize) bytes on disk for a limit of 40,960")
    }

    @Test func theServersDiskLevelsGetTheConfiguredBounds() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ImageServer(configuration: .testing {
            $0.resultCache = .disk
            $0.sourceCache = .disk
            $0.cacheDirectory = directory
            $0.diskCacheSize = 12_345
            $0.diskCacheMaxAge = .seconds(60)
            $0.maxSourceFileSize = 300 << 20
        })
        for cache in [server.resultCache, server.sourceCache] {
            let disk = try #require(cache.diskConfiguration)
            #expect(disk.maxSize == 12_345)
            #expect(disk.maxAge == 60)
            #expect(disk.cleanupInterval == ByteCache.diskCleanupInterval)
        }
        // The source level takes back any source the fetch limit allows: with the default
        // entry limit, a source over 100 MiB was fetched and written again on every request.
        #expect(server.sourceCache.diskConfiguration?.maxEntrySize == 300 << 20)
        #expect(server.resultCache.diskConfiguration?.maxEntrySize == DiskCache.Configuration().maxEntrySize)
        try await server.shutdown()
    }

    /// A disk entry whose bytes are not the count stored with it is a miss, and is removed:
    /// after a power loss a file renamed into place without an fsync can come back empty
    /// (or cut) while its extended data survives, and was served as a 200 of nothing.
    /// An entry with no description (not written by a ByteCache) is a miss too.
    @Test func aDiskEntryWhoseBytesAreNotTheStoredCountIsAMissAndRemoved() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ByteCache(levels: .disk, directory: directory, memoryLimit: 1 << 20)
        let view = DiskCache(directory: directory)
        let entry = ByteCache.Entry(data: Self.noise(5_000, seed: 7), format: .webp, filename: "a.webp")
        for key in ["emptied", "cut", "kept"] { #expect(cache.store(entry, forKey: key)) }
        // What the power loss leaves: the file's bytes gone or cut, its attribute intact.
        for (key, length) in [("emptied", 0), ("cut", 4_096)] {
            let path = view.fileURL(forKey: key).path
            #expect(truncate(path, off_t(length)) == 0)
            #expect(view.entry(forKey: key)?.extendedData != nil, "the attribute survives the cut")
        }
        #expect(cache.diskEntry(forKey: "emptied") == nil)
        #expect(cache.diskEntry(forKey: "cut") == nil)
        #expect(!view.containsData(forKey: "emptied"), "a damaged entry is removed")
        #expect(!view.containsData(forKey: "cut"))
        let kept = try #require(cache.diskEntry(forKey: "kept"))
        #expect(kept.data == entry.data)
        #expect(kept.format == .webp)
        #expect(kept.filename == "a.webp")
        // Bytes without a description: written by something else, so unchecked, a miss.
        try view.setData(entry.data, forKey: "foreign")
        #expect(cache.diskEntry(forKey: "foreign") == nil)
    }

    /// The description survives its own encoding, with and without a file name.
    @Test func theStoredDescriptionRoundTrips() throws {
        for filename in ["a.png", nil] {
            let description = ByteCache.StoredDescription(of: ByteCache.Entry(data: Data(count: 12), format: .png, filename: filename))
            #expect(ByteCache.StoredDescription(parsing: description.encoded) == description)
        }
        // The old layout (format, then the file name) has no count.
        #expect(ByteCache.StoredDescription(parsing: Data("png\na.png".utf8)) == nil)
        #expect(ByteCache.StoredDescription(parsing: Data("png\n\n-1".utf8)) == nil)
        // A library user's file name may hold a newline: it is everything between the
        // format and the count.
        let odd = ByteCache.StoredDescription(of: ByteCache.Entry(data: Data(count: 3), format: .gif, filename: "a\nb.gif"))
        #expect(ByteCache.StoredDescription(parsing: odd.encoded) == odd)
    }

    /// Keys are charged to the memory limit with their bytes: a source cache keyed by whole
    /// `data:` URLs held keys as large as its entries, uncounted.
    @Test func aKeyIsChargedToTheMemoryLimit() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ByteCache(levels: .memory, directory: directory, memoryLimit: 1_000)
        let entry = ByteCache.Entry(data: Data(repeating: 1, count: 500), format: .png)
        let shortKey = "k", longKey = String(repeating: "d", count: 600)
        #expect(ByteCache.cost(of: entry, key: longKey) == 1_100)
        cache.store(entry, forKey: shortKey)
        cache.store(entry, forKey: longKey)
        #expect(cache.memoryEntry(forKey: shortKey) == entry, "500 + 1 bytes fit")
        #expect(cache.memoryEntry(forKey: longKey) == nil, "500 + 600 bytes are over the limit")
    }

    /// An entry over the disk level's entry limit is not written (no read would take it
    /// back), and the store says so; the memory level still has it.
    @Test func anEntryOverTheDiskEntryLimitIsNotWritten() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var limits = DiskCache.Configuration()
        limits.maxEntrySize = 100
        let cache = ByteCache(levels: [.memory, .disk], directory: directory, memoryLimit: 1 << 20, disk: limits)
        let entry = ByteCache.Entry(data: Data(repeating: 1, count: 101), format: .png)
        #expect(!cache.store(entry, forKey: "big"))
        #expect(cache.memoryEntry(forKey: "big") == entry)
        #expect(cache.diskEntry(forKey: "big") == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "no entry and no temporary file")
    }

    /// A review's finding: an entry in memory never aged, and one read back from disk
    /// started a new life there, so a result of a changed source was served for as long as
    /// it was popular. Past the disk level's age, neither level serves it; a copy promoted
    /// from disk keeps the file's age.
    @Test func noLevelServesAnEntryPastItsAge() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var limits = DiskCache.Configuration()
        limits.maxAge = 0.3
        let cache = ByteCache(levels: [.memory, .disk], directory: directory, memoryLimit: 1 << 20, disk: limits)
        let entry = ByteCache.Entry(data: Data([1, 2, 3]), format: .png)
        cache.store(entry, forKey: "a")
        #expect(cache.memoryEntry(forKey: "a") == entry)
        try await Task.sleep(for: .milliseconds(400))
        #expect(cache.memoryEntry(forKey: "a") == nil)
        #expect(cache.diskEntry(forKey: "a") == nil)
        // The file is still there (the cleanup has not run): a negative age never expires.
        var forever = limits
        forever.maxAge = -1
        let keeper = ByteCache(levels: [.memory, .disk], directory: directory, memoryLimit: 1 << 20, disk: forever)
        #expect(keeper.diskEntry(forKey: "a") == entry)
        #expect(keeper.memoryEntry(forKey: "a") == entry)
    }

    @Test func memoryResultCacheAnswersTheSecondRequestWithoutTheOrigin() async throws {
        let configuration = ImageServer.Configuration.testing {
            $0.resultCache = .memory
            $0.prometheusBind = "127.0.0.1:0"
        }
        try await RunningImageServer.with(origin: ["/a.png": .ok(try Self.png.get())], configuration) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:32"], extension: "webp")
            let first = try await server.request(path)
            let second = try await server.request(path)
            #expect(first.status == 200 && second.status == 200)
            #expect(second.body == first.body)
            #expect(second.header("Content-Type") == "image/webp")
            #expect(origin.requestCount("/a.png") == 1)
            let metrics = try await server.metrics()
            #expect(prometheusValue(metrics, "webimage_result_cache_hits_total{level=\"memory\"}") == 1)
            #expect(prometheusValue(metrics, "webimage_result_cache_misses_total") == 1)
            // Other options are another result: a miss, and a second origin fetch.
            #expect(try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:16"], extension: "webp")).status == 200)
            #expect(origin.requestCount("/a.png") == 2)
        }
    }

    @Test func cachebusterChangesTheCacheKey() async throws {
        try await RunningImageServer.with(origin: ["/a.png": .ok(try Self.png.get())], .testing { $0.resultCache = .memory }) { origin, server async throws in
            for buster in ["cb:1", "cb:1", "cachebuster:2", "cb:1", "cachebuster:2"] {
                #expect(try await server.request(ImageURL.plain(origin.url("/a.png"), [buster, "w:10"])).status == 200)
            }
            #expect(origin.requestCount("/a.png") == 2)
        }
    }

    @Test func negotiatedFormatsAreCachedApart() async throws {
        let configuration = ImageServer.Configuration.testing { $0.resultCache = .memory; $0.autoWebP = true }
        try await RunningImageServer.with(origin: ["/a.png": .ok(try Self.png.get())], configuration) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:10"])
            let webp = try await server.request(path, headers: [("Accept", "image/webp")])
            let png = try await server.request(path)
            let webpAgain = try await server.request(path, headers: [("Accept", "image/webp")])
            let pngAgain = try await server.request(path)
            #expect(ImageFormat(sniffing: webp.body) == .webp && ImageFormat(sniffing: webpAgain.body) == .webp)
            #expect(ImageFormat(sniffing: png.body) == .png && ImageFormat(sniffing: pngAgain.body) == .png)
            #expect(origin.requestCount("/a.png") == 2)
        }
    }

    @Test func aURLThatNamesItsFormatIsOneResultForEveryClient() async throws {
        let configuration = ImageServer.Configuration.testing {
            $0.resultCache = .memory
            $0.autoWebP = true
            $0.autoAVIF = true
            $0.prometheusBind = "127.0.0.1:0"
        }
        try await RunningImageServer.with(origin: ["/a.png": .ok(try Self.png.get())], configuration) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:10"], extension: "png")
            let plain = try await server.request(path)
            let offering = try await server.request(path, headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(plain.status == 200 && offering.status == 200)
            #expect(ImageFormat(sniffing: offering.body) == .png && offering.body == plain.body)
            // The URL fixed the format, so the answer does not depend on Accept.
            #expect(plain.header("Vary") == nil && offering.header("Vary") == nil)
            #expect(origin.requestCount("/a.png") == 1)
            let metrics = try await server.metrics()
            #expect(prometheusValue(metrics, "webimage_result_cache_hits_total{level=\"memory\"}") == 1)
        }
    }

    @Test func aNegotiatedHitStillSaysVary() async throws {
        let configuration = ImageServer.Configuration.testing { $0.resultCache = .memory; $0.autoWebP = true }
        try await RunningImageServer.with(origin: ["/a.png": .ok(try Self.png.get())], configuration) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:10"])
            for _ in 0..<2 {
                let reply = try await server.request(path, headers: [("Accept", "image/webp")])
                #expect(ImageFormat(sniffing: reply.body) == .webp)
                #expect(reply.header("Vary") == "Accept")
            }
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test func aCachedResultStillNeedsItsSignature() async throws {
        let signer = try URLSigner(keys: [ImageServerSignatureTests.key], salts: [ImageServerSignatureTests.salt])
        let configuration = ImageServerSignatureTests.signed { $0.resultCache = .memory; $0.useETag = true }
        try await RunningImageServer.with(origin: ["/a.png": .ok(try Self.png.get())], configuration) { origin, server in
            let part = ImageURL.signedPlainPart(origin.url("/a.png"), ["w:10"], extension: "png")
            let signature = try #require(signer.signature(for: part))
            let first = try await server.request("/" + signature + part)
            #expect(first.status == 200)
            #expect(try await server.request("/insecure" + part).status == 403)
            #expect(try await server.request("/" + String(signature.dropLast()) + part).status == 403)
            let hit = try await server.request("/" + signature + part)
            #expect(hit.status == 200 && hit.body == first.body)
            // The tag stored with the entry is the one a fresh response computed.
            #expect(hit.header("ETag") != nil && hit.header("ETag") == first.header("ETag"))
            #expect(hit.header("ETag") == ByteCache.Entry.etag(of: first.body))
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test func withTheResultCacheOffEveryRequestIsProcessed() async throws {
        try await RunningImageServer.with(origin: ["/a.png": .ok(try Self.png.get())], .testing { $0.resultCache = [] }) { origin, server async throws in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:10"])
            #expect(try await server.request(path).status == 200)
            #expect(try await server.request(path).status == 200)
            #expect(origin.requestCount("/a.png") == 2)
        }
    }

    @Test func diskResultCacheServesANewServerWithoutTheOrigin() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ImageServer.Configuration.testing {
            $0.resultCache = .disk
            $0.cacheDirectory = directory
            $0.prometheusBind = "127.0.0.1:0"
            $0.useETag = true
        }
        try await LoopbackServer.with(["/a.png": .ok(try Self.png.get())]) { origin in
            let path = ImageURL.plain(origin.url("/a.png"), ["rs:fill:20:20"], extension: "jpg")
            let first = try await RunningImageServer.with(configuration) { server in
                try await server.request(path)
            }
            #expect(first.status == 200)
            #expect(origin.requestCount("/a.png") == 1)
            let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?.allObjects.count ?? 0
            #expect(files > 0)

            try await RunningImageServer.with(configuration) { server in
                let second = try await server.request(path)
                #expect(second.status == 200)
                #expect(second.body == first.body)
                // The format comes back from the disk entry, not from a guess.
                #expect(second.header("Content-Type") == "image/jpeg")
                // The disk keeps no tag: it is computed again from the same bytes.
                #expect(second.header("ETag") != nil && second.header("ETag") == first.header("ETag"))
                let metrics = try await server.metrics()
                #expect(prometheusValue(metrics, "webimage_result_cache_hits_total{level=\"disk\"}") == 1)
            }
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test func memoryAndDiskPromoteADiskHitToMemory() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ImageServer.Configuration.testing {
            $0.resultCache = [.memory, .disk]
            $0.cacheDirectory = directory
            $0.prometheusBind = "127.0.0.1:0"
        }
        try await LoopbackServer.with(["/a.png": .ok(try Self.png.get())]) { origin in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:16"])
            _ = try await RunningImageServer.with(configuration) { server in try await server.request(path) }
            try await RunningImageServer.with(configuration) { server in
                #expect(try await server.request(path).status == 200)
                #expect(try await server.request(path).status == 200)
                let metrics = try await server.metrics()
                #expect(prometheusValue(metrics, "webimage_result_cache_hits_total{level=\"disk\"}") == 1)
                #expect(prometheusValue(metrics, "webimage_result_cache_hits_total{level=\"memory\"}") == 1)
            }
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test func sourceCacheFetchesEachSourceOnceForAnyOptions() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ImageServer.Configuration.testing {
            $0.resultCache = []
            $0.sourceCache = [.memory, .disk]
            $0.cacheDirectory = directory
        }
        try await LoopbackServer.with(["/a.png": .ok(try Self.png.get())]) { origin in
            try await RunningImageServer.with(configuration) { server in
                for width in [10, 20, 30] {
                    let reply = try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:\(width)"], extension: "png"))
                    #expect(try CodersManager.shared.decode(reply.body).size.width == width)
                }
            }
            #expect(origin.requestCount("/a.png") == 1)
            // On disk, it outlives the server.
            try await RunningImageServer.with(configuration) { server async throws in
                #expect(try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:40"])).status == 200)
            }
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    /// A disk level in a folder the server cannot use stops it from starting, with the
    /// setting and the reason: it used to start, and every store failed quietly (a cache
    /// write never fails a response), so the level was off and nothing said so. Without a
    /// disk level, the folder is not looked at.
    @Test func aDiskLevelInAnUnusableFolderStopsTheServerFromStarting() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a-file")
        try Data([1]).write(to: file)
        for levels in [(result: ImageServer.Configuration.CacheLevels.disk, source: ImageServer.Configuration.CacheLevels()), ([], .disk)] {
            let configuration = ImageServer.Configuration.testing {
                $0.resultCache = levels.result
                $0.sourceCache = levels.source
                $0.cacheDirectory = file.appendingPathComponent("cache", isDirectory: true)
            }
            do {
                _ = try ImageServer(configuration: configuration)
                Issue.record("a server started with its cache folder under a file")
            } catch {
                #expect(error.status == 400 && error.message.contains("the cache folder (WEBIMAGE_CACHE_DIR, --cache-dir)"), "\(error.message)")
                #expect(error.message.contains(file.path), "\(error.message)")
            }
        }
        _ = try ImageServer(configuration: .testing { $0.resultCache = .memory; $0.cacheDirectory = file })
    }

    /// Disk entries are keyed under the policy that stored them: a node restarted with
    /// loopback sources closed again refuses a source it cached while they were open, for
    /// the URL it cached a result for and for new options on it (a source-cache hit), and
    /// the origin is not asked. Back under the first policy, both caches serve again.
    @Test func aStricterPolicyFindsNothingAnOpenerOneCached() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let open = ImageServer.Configuration.testing {
            $0.resultCache = .disk
            $0.sourceCache = .disk
            $0.cacheDirectory = directory
        }
        var strict = open
        strict.sourceAddresses.allowsLoopback = false
        try await LoopbackServer.with(["/a.png": .ok(try Self.png.get())]) { origin in
            let cached = ImageURL.plain(origin.url("/a.png"), ["w:10"])
            let other = ImageURL.plain(origin.url("/a.png"), ["w:20"])
            try await RunningImageServer.with(open) { server async throws in
                #expect(try await server.request(cached).status == 200)
            }
            #expect(origin.requestCount("/a.png") == 1)
            try await RunningImageServer.with(strict) { server async throws in
                ImageServerSourcePolicyTests.expectAddressRefused(try await server.request(cached), hiding: [])
                ImageServerSourcePolicyTests.expectAddressRefused(try await server.request(other), hiding: [])
            }
            #expect(origin.requestCount("/a.png") == 1)
            try await RunningImageServer.with(open) { server async throws in
                #expect(try await server.request(cached).status == 200)
                #expect(try await server.request(other).status == 200)
            }
            #expect(origin.requestCount("/a.png") == 1, "the same settings share the folder's entries")
        }
    }

    /// Each setting that decides what may be fetched changes both namespaces; a setting that
    /// changes only results (the default quality) changes only the results'; the same
    /// settings give the same namespaces (every node of a deployment shares its folder).
    @Test func cacheNamespacesFollowTheSettingsThatDecideTheBytes() throws {
        let base = ImageServer.Configuration.testing()
        #expect(base.sourceCacheNamespace == ImageServer.Configuration.testing().sourceCacheNamespace)
        #expect(base.resultCacheNamespace == ImageServer.Configuration.testing().resultCacheNamespace)
        // Results depend on the build too (the package's and each image library's version):
        // a rolling upgrade's nodes do not serve each other's results. Sources do not.
        #expect(ImageServer.Configuration.buildDescription.contains(WebImageVersion.current))
        #expect(ImageServer.Configuration.buildDescription.contains("libwebp"))
        #expect(base.resultCacheNamespace == base.resultCacheNamespace(build: ImageServer.Configuration.buildDescription))
        #expect(base.resultCacheNamespace != base.resultCacheNamespace(build: "build=0.0.1 libwebp 0.1"))
        #expect(base.sourceCacheNamespace != base.resultCacheNamespace)
        // The same lists in another order are the same policy (nodes configured by hand).
        let a = try SourcePattern(parsing: "https://a.example/"), b = try SourcePattern(parsing: "https://b.example/")
        let one = ImageServer.Configuration.testing { $0.allowedSources = [a, b] }
        let other = ImageServer.Configuration.testing { $0.allowedSources = [b, a] }
        #expect(one.sourceCacheNamespace == other.sourceCacheNamespace)
        let policyChanges: [(String, (inout ImageServer.Configuration) throws -> Void)] = [
            ("allowed sources", { $0.allowedSources = [try SourcePattern(parsing: "https://images.example/")] }),
            ("loopback", { $0.sourceAddresses.allowsLoopback = false }),
            ("link-local", { $0.sourceAddresses.allowsLinkLocal = true }),
            ("private", { $0.sourceAddresses.allowsPrivate = true }),
            ("networks", { $0.sourceAddresses.allowedNetworks = [try IPNetwork(parsing: "10.1.0.0/16")] }),
            ("local root", { $0.localFilesystemRoot = "/srv/images" }),
            ("data URLs", { $0.allowsDataSources = true }),
            ("file size", { $0.maxSourceFileSize = 1 << 20 }),
            ("redirects", { $0.maxRedirects = 0 }),
        ]
        for (name, change) in policyChanges {
            var changed = base
            try change(&changed)
            #expect(changed.sourceCacheNamespace != base.sourceCacheNamespace, "\(name)")
            #expect(changed.resultCacheNamespace != base.resultCacheNamespace, "\(name)")
        }
        let resultChanges: [(String, (inout ImageServer.Configuration) -> Void)] = [
            ("quality", { $0.quality = 50 }),
            ("format quality", { $0.formatQuality[.webp] = 50 }),
            ("preferred formats", { $0.preferredFormats = [.png] }),
            ("SVG", { $0.allowsSVG = true }),
            ("PDF", { $0.allowsPDF = true }),
            ("resolution", { $0.maxSourceResolution = 1 }),
            ("frames", { $0.maxAnimationFrames = 1 }),
            ("dimension", { $0.maxResultDimension = 100 }),
        ]
        for (name, change) in resultChanges {
            var changed = base
            change(&changed)
            #expect(changed.sourceCacheNamespace == base.sourceCacheNamespace, "\(name)")
            #expect(changed.resultCacheNamespace != base.resultCacheNamespace, "\(name)")
        }
    }

    /// `count` bytes of noise: they do not compress.
    static func noise(_ count: Int, seed: UInt64) -> Data {
        var random = SplitMix64(seed: seed)
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }
}
