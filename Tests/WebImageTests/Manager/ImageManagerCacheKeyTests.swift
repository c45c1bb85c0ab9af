import Foundation
import Testing
@testable import WebImage

/// The cache key: the key filter's output with the thumbnail and transformer parts
/// inserted before the path extension, as SDWebImage builds it.
@Suite struct ImageManagerCacheKeyTests {
    let manager = ImageManager(cache: ImageCache(namespace: "keys", directory: FileManager.default.temporaryDirectory))
    let url = URL(string: "http://foo/image.png?x#m")

    @Test func plainKeyIsTheAbsoluteString() {
        #expect(manager.cacheKey(for: url, context: ImageContext()) == "http://foo/image.png?x#m")
        #expect(manager.cacheKey(for: nil, context: ImageContext()) == nil)
    }

    @Test func transformerKeyGoesBeforeTheExtension() {
        var context = ImageContext()
        context.transformer = KeyedFlip("KEY")
        #expect(manager.cacheKey(for: url, context: context) == "http://foo/image-KEY.png?x#m")
    }

    @Test func thumbnailPartComesBeforeTheTransformerPart() {
        var context = ImageContext()
        context.thumbnailPixelSize = ImageSize(width: 64, height: 48)
        context.preserveAspectRatio = false
        #expect(manager.cacheKey(for: url, context: context) == "http://foo/image-Thumbnail(%7B64.000000,48.000000%7D,0).png?x#m")
        context.transformer = KeyedFlip("KEY")
        #expect(manager.cacheKey(for: url, context: context) == "http://foo/image-Thumbnail(%7B64.000000,48.000000%7D,0)-KEY.png?x#m")
    }

    /// Decode options add a part only for what changes the decoded image beyond its size;
    /// it stands between the thumbnail part and the transformer part.
    @Test func decodeOptionsThatChangeTheImageAddTheirPart() throws {
        var options = ImageCoderOptions()
        #expect(ImageCacheKey.decoded("a.png", options: options) == "a.png")
        options.pixelLimit = 10
        options.decodeFirstFrameOnly = true
        options.compressionQuality = 0.1
        #expect(ImageCacheKey.decoded("a.png", options: options) == "a.png")
        options.applyOrientation = false
        options.thumbnailCoversBox = true
        options.keepsColorProfile = true
        options.readsMetadata = true
        options.pageIndex = 2
        #expect(ImageCacheKey.decoded("a.png", options: options) == "a-Decode(orientation=0,cover=1,profile=1,metadata=1,page=2).png")
        // A frame limit cuts the animation: its own part, unless first-frame-only (the
        // cache's own rule for stills) already holds.
        var cut = ImageCoderOptions()
        cut.maximumFrameCount = 5
        #expect(ImageCacheKey.decoded("a.gif", options: cut) == "a-Decode(frames=5).gif")
        cut.decodeFirstFrameOnly = true
        #expect(ImageCacheKey.decoded("a.gif", options: cut) == "a.gif")
        cut.decodeFirstFrameOnly = false
        cut.maximumFrameCount = 0
        #expect(ImageCacheKey.decoded("a.gif", options: cut) == "a.gif")

        var cmyk = ImageCoderOptions()
        cmyk.defaultCMYKProfile = nil
        #expect(ImageCacheKey.decoded("a.png", options: cmyk) == "a-Decode(cmyk=naive).png")
        cmyk.defaultCMYKProfile = .sRGB
        #expect(ImageCacheKey.decoded("a.png", options: cmyk) == "a-Decode(cmyk=naive).png", "not CMYK: converts as none does")
        let lut = try ColorProfile(iccData: ColorFixtureTests.fixture("cmyk-lut.icc"))
        cmyk.defaultCMYKProfile = lut
        let hex = lut.digest.prefix(6).map { String(format: "%02x", $0) }.joined()
        #expect(hex.count == 12)
        #expect(ImageCacheKey.decoded("a.png", options: cmyk) == "a-Decode(cmyk=\(hex)).png")

        var context = ImageContext()
        context.thumbnailPixelSize = ImageSize(width: 64, height: 48)
        var kept = ImageCoderOptions()
        kept.keepsColorProfile = true
        context.imageDecodeOptions = kept
        context.transformer = KeyedFlip("KEY")
        #expect(manager.cacheKey(for: url, context: context) == "http://foo/image-Thumbnail(%7B64.000000,48.000000%7D,1)-Decode(profile=1)-KEY.png?x#m")
    }

    @Test func keyFilterRunsFirstAndNilMeansNoCaching() {
        var context = ImageContext()
        context.cacheKeyFilter = BlockCacheKeyFilter { url in
            var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
            parts?.query = nil
            parts?.fragment = nil
            return parts?.string
        }
        context.transformer = KeyedFlip("T")
        #expect(manager.cacheKey(for: url, context: context) == "http://foo/image-T.png")
        context.cacheKeyFilter = BlockCacheKeyFilter { _ in nil }
        #expect(manager.cacheKey(for: url, context: context) == nil)
    }

    @Test func managerWideTransformerAndFilterApplyWhenTheContextHasNone() {
        let manager = ImageManager(cache: ImageCache(namespace: "keys2", directory: FileManager.default.temporaryDirectory))
        manager.transformer = KeyedFlip("M")
        manager.cacheKeyFilter = BlockCacheKeyFilter { "k/" + $0.lastPathComponent }
        #expect(manager.cacheKey(for: url, context: ImageContext()) == "k/image-M.png")
        var context = ImageContext()
        context.transformer = KeyedFlip("C")
        #expect(manager.cacheKey(for: url, context: context) == "k/image-C.png")
    }

    @Test func planMapsFlagsToLoaderAndCacheOptions() {
        var context = ImageContext()
        context.scaleDownLimitBytes = 1000
        context.thumbnailPixelSize = ImageSize(width: 10, height: 10)
        context.scaleFactor = 2
        let plan = ImageLoadPlan(
            url: URL(fileURLWithPath: "/x.png"),
            options: [.lowPriority, .progressiveLoad, .allowInvalidSSLCertificates, .handleCookies, .scaleDownLargeImages, .decodeFirstFrameOnly,
                      .queryMemoryData],
            context: context, manager: manager, settings: manager.currentSettings
        )
        let download = plan.downloadOptions(cachedData: Data([1]))
        #expect(download.priority == .low)
        // A refresh (cached bytes given) shows no partial images: its cached image is shown.
        #expect(!download.progressiveLoad)
        #expect(plan.downloadOptions(cachedData: nil).progressiveLoad)
        #expect(download.allowInvalidCertificates)
        #expect(download.handleCookies)
        #expect(download.cachedData == Data([1]))
        #expect(download.decodeOptions.scaleDownLimitBytes == 1000)
        #expect(download.decodeOptions.thumbnailPixelSize == ImageSize(width: 10, height: 10))
        #expect(download.decodeOptions.scaleFactor == 2)
        #expect(download.decodeOptions.decodeFirstFrameOnly)
        #expect(plan.cacheOptions == [.queryMemoryData, .decodeFirstFrameOnly])
        #expect(plan.finalQueryContext.coderOptions.thumbnailPixelSize == nil)
        #expect(plan.originalQueryContext.coderOptions.thumbnailPixelSize == ImageSize(width: 10, height: 10))
        #expect(plan.originalQueryCacheType == .disk)
        #expect(plan.originalStoreCacheType == .disk)
        let high = ImageLoadPlan(url: URL(fileURLWithPath: "/x.png"), options: [.highPriority, .lowPriority], context: ImageContext(),
                                 manager: manager, settings: manager.currentSettings)
        #expect(high.downloadOptions(cachedData: nil).priority == .high)
        #expect(high.downloadOptions(cachedData: nil).decodeOptions.scaleDownLimitBytes == nil)
        #expect(!high.downloadOptions(cachedData: nil).handleCookies)
    }

    /// SDWebImage's `SDImageScaleFactorForKey` cases.
    @Test(arguments: [
        ("https://a.com/icon@2x.png", 2.0), ("https://a.com/icon@3x.png?v=1", 3.0),
        ("https://a.com/icon%402x.png", 2.0), ("/var/images/a@3x.jpg", 3.0), ("a@2x.png", 2.0),
        ("@2x.png", 1.0),                       // shorter than any name that can carry a scale
        ("https://a.com/icon@2x", 1.0),         // no dot after the x
        ("/var/images/a%402x.png", 1.0),        // percent-encoding counts in URLs only
        ("https://a.com/icon@4x.png", 1.0), ("https://a.com/icon.png", 1.0),
    ])
    func scaleFactorFromTheKeysName(key: String, scale: Double) {
        #expect(ImageCacheKey.scaleFactor(forKey: key) == scale)
    }

    @Test func aLoadTakesItsScaleFromTheNameUnlessTheContextGivesOne() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("icon@2x.png")
        try Corpus.data("TestImage.png").write(to: file)
        let manager = ImageManager(cache: ImageCache(namespace: "scale", directory: directory.url), loader: LoadersManager(loaders: [FileURLLoader()]))
        let named = try await manager.loadImage(with: file, options: .fromLoaderOnly)
        #expect(named.image.scale == 2)
        #expect(named.image.size == ImageSize(width: 300, height: 300), "the scale changes points, not pixels")
        var context = ImageContext()
        context.scaleFactor = 1
        #expect(try await manager.loadImage(with: file, options: .fromLoaderOnly, context: context).image.scale == 1)
        await manager.waitForBackgroundStores()
    }
}
