import Foundation
import Testing
@testable import WebImage

@Suite("ImageCache")
struct ImageCacheTests {
    @Test func storeThenQueryReturnsTheSameObjectFromMemory() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        let image = makeImage()
        try await cache.store(image, data: nil, forKey: "k")
        let result = try await cache.image(forKey: "k")
        #expect(result.image === image)
        #expect(result.cacheType == .memory)
        #expect(result.data == nil)
        #expect(cache.imageFromMemoryCache(forKey: "k") === image)
    }

    @Test func memoryOnlyStoreIsNotOnDisk() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        try await cache.store(makeImage(), data: nil, forKey: "k", cacheType: .memory)
        #expect(await cache.containsImage(forKey: "k") == .memory)
        #expect(await cache.containsImage(forKey: "k", cacheType: .disk) == .none)
        #expect(await cache.totalDiskCount() == 0)
        await cache.clear(.memory)
        #expect(await cache.containsImage(forKey: "k") == .none)
    }

    @Test func diskOnlyStoreIsNotInMemory() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        try await cache.store(makeImage(), data: try Corpus.data("TestImage.png"), forKey: "k", cacheType: .disk)
        #expect(cache.imageFromMemoryCache(forKey: "k") == nil)
        #expect(await cache.containsImage(forKey: "k") == .disk)
    }

    @Test func removeFromMemoryKeepsTheDiskCopy() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        let png = try Corpus.data("TestImage.png")
        let image = try CodersManager.shared.decode(png)
        try await cache.store(image, data: png, forKey: "k")
        await cache.removeImage(forKey: "k", cacheType: .memory)
        #expect(cache.imageFromMemoryCache(forKey: "k") == nil)
        let fromDisk = try await cache.image(forKey: "k")
        #expect(fromDisk.cacheType == .disk)
        #expect(fromDisk.data == png)
        #expect(fromDisk.image?.pixels == image.pixels)
        await cache.removeImage(forKey: "k", cacheType: .all)
        #expect(try await cache.image(forKey: "k").cacheType == .none)
    }

    @Test func storingWithDataWritesTheBytesUnchanged() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        let jpeg = try Corpus.data("TestImage.jpg")
        try await cache.store(makeImage(), data: jpeg, forKey: "https://a.com/x.jpg")
        #expect(cache.diskImageData(forKey: "https://a.com/x.jpg") == jpeg)
    }

    @Test func aDiskHitIsDecodedOnceThenServedFromMemory() async throws {
        let counter = CountingCoder()
        let (cache, directory) = try makeImageCache(coder: counter)
        defer { directory.remove() }
        try cache.storeImageDataToDisk(try Corpus.data("TestImage.jpg"), forKey: "k")
        let first = try await cache.image(forKey: "k")
        #expect(first.cacheType == .disk)
        #expect(first.image?.format == .jpeg)
        let second = try await cache.image(forKey: "k")
        #expect(second.cacheType == .memory)
        #expect(second.image === first.image)
        #expect(counter.decodeCount == 1)
    }

    @Test func storeCacheTypeWithoutMemoryLeavesMemoryEmptyAfterADiskHit() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        try cache.storeImageDataToDisk(try Corpus.data("TestImage.png"), forKey: "k")
        var context = ImageCacheContext()
        context.storeCacheType = .disk
        #expect(try await cache.image(forKey: "k", context: context).cacheType == .disk)
        #expect(cache.imageFromMemoryCache(forKey: "k") == nil)
    }

    @Test func queryCacheTypeSelectsTheLevels() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        try cache.storeImageDataToDisk(try Corpus.data("TestImage.png"), forKey: "disk")
        cache.storeImageToMemory(makeImage(), forKey: "memory")
        var context = ImageCacheContext()
        context.queryCacheType = .memory
        #expect(try await cache.image(forKey: "disk", context: context).image == nil)
        context.queryCacheType = .disk
        #expect(try await cache.image(forKey: "memory", context: context).image == nil)
        #expect(try await cache.image(forKey: "disk", context: context).cacheType == .disk)
        context.queryCacheType = .none
        #expect(try await cache.image(forKey: "disk", context: context).image == nil)
    }

    @Test func queryMemoryDataReturnsTheDiskBytesWithAMemoryHit() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        let png = try Corpus.data("TestImage.png")
        let image = makeImage()
        try await cache.store(image, data: png, forKey: "k")
        for options: ImageCacheOptions in [[.queryMemoryData], [.queryMemoryData, .queryMemoryDataSync]] {
            let result = try await cache.image(forKey: "k", options: options)
            #expect(result.image === image)
            #expect(result.cacheType == .memory)
            #expect(result.data == png)
        }
    }

    /// With the option the decode runs on the caller's task; without it, off Swift's pool
    /// on the blocking-work queue. (The results alone are the same either way: the test
    /// used to pass without the option.)
    @Test func queryDiskDataSyncDecodesOnTheCallersTask() async throws {
        let counter = CountingCoder()
        let (cache, directory) = try makeImageCache(coder: counter)
        defer { directory.remove() }
        try cache.storeImageDataToDisk(try Corpus.data("TestImage.png"), forKey: "k")
        let result = try await cache.image(forKey: "k", options: .queryDiskDataSync)
        #expect(result.cacheType == .disk)
        #expect(result.image?.format == .png)
        #expect(cache.imageFromCache(forKey: "k") === result.image)
        cache.memoryCache.removeAll()
        _ = try await cache.image(forKey: "k")
        #expect(counter.decodedInTask == [true, false])
    }

    /// A review's finding: the blocking `imageFromCache` returned the memory image whatever
    /// the options and levels asked, unlike the query: every frame for a first-frame query,
    /// and the memory image for a disk-only one.
    @Test func theBlockingLookupHoldsAMemoryHitToTheOptionsAsTheQueryDoes() throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        let animation = makeAnimatedImage(format: .gif)
        cache.storeImageToMemory(animation, forKey: "k")
        #expect(cache.imageFromCache(forKey: "k") === animation)
        #expect(cache.imageFromCache(forKey: "k", options: .decodeFirstFrameOnly)?.frameCount == 1)
        var diskOnly = ImageCacheContext()
        diskOnly.queryCacheType = .disk
        #expect(cache.imageFromCache(forKey: "k", context: diskOnly) == nil)
    }

    @Test func aThumbnailIsKeptInMemoryUnderItsThumbnailKey() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        let key = "https://a.com/large.jpg"
        try cache.storeImageDataToDisk(try Corpus.data("TestImageLarge.jpg"), forKey: key)
        var context = ImageCacheContext()
        let size = ImageSize(width: 64, height: 64)
        context.coderOptions.thumbnailPixelSize = size
        let result = try await cache.image(forKey: key, context: context)
        let thumbnail = try #require(result.image)
        #expect(thumbnail.size.width <= 64 && thumbnail.size.height <= 64)
        #expect(thumbnail.isThumbnail)
        #expect(cache.imageFromMemoryCache(forKey: key) == nil)
        #expect(cache.imageFromMemoryCache(forKey: ImageCacheKey.thumbnailed(key, pixelSize: size)) === thumbnail)
        #expect(try await cache.image(forKey: key, context: context).cacheType == .memory)
        let full = try await cache.image(forKey: key)
        #expect(full.cacheType == .disk)
        #expect(try #require(full.image).size.width > 64)
    }

    @Test func scaleDownLimitDecodesSmaller() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        try cache.storeImageDataToDisk(try Corpus.data("TestImageLarge.jpg"), forKey: "k")
        var context = ImageCacheContext()
        context.coderOptions.scaleDownLimitBytes = 100_000
        let image = try #require(try await cache.image(forKey: "k", context: context).image)
        #expect(image.size.pixelCount * 4 <= 100_000)
    }

    @Test func decodeFirstFrameOnlyGivesAStillImageAndDoesNotFillMemory() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        try cache.storeImageDataToDisk(try Corpus.data("TestImageAnimated.webp"), forKey: "k")
        let first = try #require(try await cache.image(forKey: "k", options: .decodeFirstFrameOnly).image)
        #expect(first.frameCount == 1)
        #expect(cache.imageFromMemoryCache(forKey: "k") == nil)
        let animated = try #require(try await cache.image(forKey: "k").image)
        #expect(animated.frameCount > 1)
        // A memory hit on an animation, asked for its first frame only, gives a still image.
        let still = try #require(try await cache.image(forKey: "k", options: .decodeFirstFrameOnly).image)
        #expect(still.frameCount == 1)
        #expect(still.pixels == animated.frames[0].pixels)
    }

    @Test func anEntryThatDoesNotDecodeIsAMissWithItsBytes() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        let garbage = Data("not an image".utf8)
        try cache.storeImageDataToDisk(garbage, forKey: "k")
        let result = try await cache.image(forKey: "k")
        #expect(result.image == nil)
        #expect(result.cacheType == .none)
        #expect(result.data == garbage)
    }

    @Test func extendedDataRoundTripsThroughTheCache() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        let extended = Data("etag=\"abc\"".utf8)
        try await cache.store(nil, data: try Corpus.data("TestImage.png"), forKey: "k", extendedData: extended)
        #expect(try await cache.image(forKey: "k").extendedData == extended)
    }

    @Test func sizeCountClearAndExpiryReachTheDisk() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        try await cache.store(nil, data: Data(count: 10), forKey: "a")
        try await cache.store(nil, data: Data(count: 20), forKey: "b")
        #expect(await cache.totalDiskSize() == 30)
        #expect(await cache.totalDiskCount() == 2)
        var config = cache.config
        config.maxDiskAge = 0
        cache.config = config
        #expect(await cache.removeExpiredData().expiredCount == 2)
        try await cache.store(nil, data: Data(count: 5), forKey: "c")
        await cache.clear(.disk)
        #expect(await cache.totalDiskCount() == 0)
    }

    @Test func loweringTheMemoryLimitInTheConfigEvictsAtOnce() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        for i in 0..<4 { cache.storeImageToMemory(makeImage(), forKey: "k\(i)") }
        var config = cache.config
        config.maxMemoryCount = 2
        cache.config = config
        #expect(cache.memoryCache.count == 2)
        #expect(cache.imageFromMemoryCache(forKey: "k3") != nil)
        #expect(cache.imageFromMemoryCache(forKey: "k0") == nil)
    }

    @Test func shouldCacheImagesInMemoryOffKeepsMemoryEmpty() async throws {
        var config = ImageCache.Configuration()
        config.shouldCacheImagesInMemory = false
        let (cache, directory) = try makeImageCache(config: config)
        defer { directory.remove() }
        try await cache.store(makeImage(), data: try Corpus.data("TestImage.png"), forKey: "k")
        #expect(cache.memoryCache.count == 0)
        #expect(try await cache.image(forKey: "k").cacheType == .disk)
        #expect(cache.memoryCache.count == 0)
    }
}
