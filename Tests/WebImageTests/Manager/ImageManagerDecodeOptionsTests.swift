import Foundation
import Testing
@testable import WebImage

/// ``ImageContext/imageDecodeOptions`` through a real manager, loopback origin, file and
/// cache directory: the options reach the decode of a download, of the original on disk,
/// of a disk hit and of a file; options that change the image get a cache entry of their
/// own; the context's fields and the flags win over them; their encoding fields stay out
/// of how the cache encodes.
@Suite struct ImageManagerDecodeOptionsTests {
    static func context(_ change: (inout ImageCoderOptions) -> Void) -> ImageContext {
        var options = ImageCoderOptions()
        change(&options)
        var context = ImageContext()
        context.imageDecodeOptions = options
        return context
    }

    /// cmyk.jpg has no profile: by default it converts through Coated FOGRA39, with
    /// `defaultCMYKProfile = nil` naively. Both variants of one URL live side by side.
    @Test func eachVariantHasItsOwnEntryFromNetworkDiskAndMemory() async throws {
        let cmyk = try ColorFixtureTests.fixture("cmyk.jpg")
        let naive = try CodersManager.shared.decode(ColorFixtureTests.fixture("cmyk.jpg.naive.png"))
        let fogra = try CodersManager.shared.decode(ColorFixtureTests.fixture("cmyk.jpg.expected.png"))
        func isNaive(_ result: ImageLoadResult) -> Bool {
            ColorFixtureTests.psnr(result.image.pixels, naive.pixels) >= 40 && ColorFixtureTests.psnr(result.image.pixels, fogra.pixels) < 35
        }
        func isFOGRA39(_ result: ImageLoadResult) -> Bool {
            ColorFixtureTests.psnr(result.image.pixels, fogra.pixels) >= 40 && ColorFixtureTests.psnr(result.image.pixels, naive.pixels) < 35
        }
        let naiveContext = Self.context { $0.defaultCMYKProfile = nil }
        try await LoopbackServer.with(["/c.jpg": .ok(cmyk, contentType: "image/jpeg")]) { server in
            try await ManagerHarness.with { harness in
                let url = server.url("/c.jpg")
                let manager = harness.makeManager()
                let key = try #require(manager.cacheKey(for: url, context: naiveContext))
                var naiveOptions = ImageCoderOptions()
                naiveOptions.defaultCMYKProfile = nil
                #expect(key == ImageCacheKey.decoded(url.absoluteString, options: naiveOptions))
                #expect(key != url.absoluteString)
                #expect(manager.cacheKey(for: url, context: Self.context { _ in }) == manager.cacheKey(for: url))

                let plain = try await manager.loadImage(with: url, options: .waitStoreCache)
                #expect(plain.cacheType == .none)
                #expect(isFOGRA39(plain))
                // The variant's first load decodes the original the plain load stored.
                let fromOriginal = try await manager.loadImage(with: url, options: .waitStoreCache, context: naiveContext)
                #expect(fromOriginal.cacheType == .disk)
                #expect(isNaive(fromOriginal))
                let fromMemory = try await manager.loadImage(with: url, context: naiveContext)
                #expect(fromMemory.cacheType == .memory)
                #expect(isNaive(fromMemory))
                let plainAgain = try await manager.loadImage(with: url)
                #expect(plainAgain.cacheType == .memory)
                #expect(isFOGRA39(plainAgain))
                #expect(server.requestCount("/c.jpg") == 1)

                // A new manager over the same directory: the variant's own disk entry.
                let fresh = harness.makeManager()
                let fromDisk = try await fresh.loadImage(with: url, context: naiveContext)
                #expect(fromDisk.cacheType == .disk)
                #expect(isNaive(fromDisk))
            }
        }

        // A download decoded with the options, and a file load.
        try await LoopbackServer.with(["/c.jpg": .ok(cmyk, contentType: "image/jpeg")]) { server in
            try await ManagerHarness.with { harness in
                let file = harness.directoryURL.appendingPathComponent("c-file.jpg")
                try cmyk.write(to: file)
                let manager = harness.adopt(ImageManager(
                    cache: harness.makeCache(),
                    loader: LoadersManager(loaders: [harness.downloader, FileURLLoader()])
                ))
                let downloaded = try await manager.loadImage(with: server.url("/c.jpg"), context: naiveContext)
                #expect(downloaded.cacheType == .none)
                #expect(isNaive(downloaded))
                let loadedFile = try await manager.loadImage(with: file, context: naiveContext)
                #expect(loadedFile.cacheType == .none)
                #expect(isNaive(loadedFile))
            }
        }
    }

    /// Keeping the colour profile and reading metadata, which no context field says.
    @Test func profileAndMetadataAreKeptWhenAskedFor() async throws {
        let photo = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("metadata/exif-xmp-icc.jpg"))
        try await LoopbackServer.with(["/m.jpg": .ok(photo, contentType: "image/jpeg")]) { server in
            try await ManagerHarness.with { harness in
                let url = server.url("/m.jpg")
                let manager = harness.makeManager()
                let plain = try await manager.loadImage(with: url, options: .waitStoreCache)
                #expect(plain.image.colorProfile == nil)
                #expect(plain.image.metadata.exif == nil)
                let kept = try await manager.loadImage(with: url, options: .waitStoreCache, context: Self.context {
                    $0.keepsColorProfile = true
                    $0.readsMetadata = true
                })
                #expect(kept.image.colorProfile != nil)
                #expect(kept.image.metadata.exif != nil)
                #expect(kept.image.metadata.xmp != nil)
                let plainAgain = try await manager.loadImage(with: url)
                #expect(plainAgain.cacheType == .memory)
                #expect(plainAgain.image.colorProfile == nil)
            }
        }
    }

    /// A thumbnail in the options counts (and names the key) when the context gives none;
    /// the context's own thumbnail and the flags win.
    @Test func contextFieldsAndFlagsWinOverTheOptions() async throws {
        let gif = try Corpus.data("TestLoopCount.gif")
        let png = try pngData(width: 200, height: 100)
        try await LoopbackServer.with(["/a.png": pngReply(png), "/a.gif": .ok(gif, contentType: "image/gif")]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/a.png")
                var context = Self.context { $0.thumbnailPixelSize = ImageSize(width: 50, height: 50) }
                #expect(manager.cacheKey(for: url, context: context) == ImageCacheKey.thumbnailed(url.absoluteString, pixelSize: ImageSize(width: 50, height: 50)))
                let fromOptions = try await manager.loadImage(with: url, context: context)
                #expect(fromOptions.image.size == ImageSize(width: 50, height: 25))
                context.thumbnailPixelSize = ImageSize(width: 20, height: 20)
                #expect(manager.cacheKey(for: url, context: context) == ImageCacheKey.thumbnailed(url.absoluteString, pixelSize: ImageSize(width: 20, height: 20)))
                let fromContext = try await manager.loadImage(with: url, context: context)
                #expect(fromContext.image.size == ImageSize(width: 20, height: 10))

                // decodeFirstFrameOnly in the options holds without the flag; the flag alone too.
                let gifURL = server.url("/a.gif")
                let all = try await manager.loadImage(with: gifURL, options: .fromLoaderOnly)
                #expect(all.image.frames.count == 2)
                let firstOnly = try await manager.loadImage(with: gifURL, options: .fromLoaderOnly, context: Self.context { $0.decodeFirstFrameOnly = true })
                #expect(firstOnly.image.frames.count == 1)
                let flagged = try await manager.loadImage(with: gifURL, options: [.fromLoaderOnly, .decodeFirstFrameOnly])
                #expect(flagged.image.frames.count == 1)
            }
        }
    }

    /// A first-frame load of an animation leaves its bytes on disk but no still in memory: a
    /// later load that wants the animation gets every frame, not the one frame.
    @Test func aFirstFrameLoadDoesNotStandInForTheAnimationInMemory() async throws {
        let gif = try Corpus.data("TestLoopCount.gif")
        try await LoopbackServer.with(["/a.gif": .ok(gif, contentType: "image/gif")]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/a.gif")
                let first = try await manager.loadImage(with: url, options: .decodeFirstFrameOnly)
                #expect(first.image.frames.count == 1)
                await manager.waitForBackgroundStores()
                let whole = try await manager.loadImage(with: url)
                #expect(whole.image.frames.count == 2)
                #expect(whole.cacheType == .disk)
                #expect(server.requestCount("/a.gif") == 1)
            }
        }
    }

    /// A review's finding: a first-frame load of a thumbnail stored its still under the
    /// thumbnail's key (which does not name the frame count), and the next load of that
    /// thumbnail without the flag got the still from disk. And the decode options' own
    /// first-frame setting was ignored on a memory hit, where the flag was honoured.
    @Test func aFirstFrameThumbnailDoesNotStandInForTheAnimatedThumbnail() async throws {
        let gif = try Corpus.data("TestLoopCount.gif")
        try await LoopbackServer.with(["/a.gif": .ok(gif, contentType: "image/gif")]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/a.gif")
                let thumbnail = Self.context { $0.thumbnailPixelSize = ImageSize(width: 20, height: 20) }
                let first = try await manager.loadImage(with: url, options: .decodeFirstFrameOnly, context: thumbnail)
                #expect(first.image.frames.count == 1)
                await manager.waitForBackgroundStores()
                let whole = try await manager.loadImage(with: url, context: thumbnail)
                #expect(whole.image.frames.count == 2)
                await manager.waitForBackgroundStores()
                let hit = try await manager.loadImage(with: url, context: thumbnail)
                #expect(hit.cacheType == .memory && hit.image.frames.count == 2)
                var stillOptions = thumbnail
                stillOptions.imageDecodeOptions?.decodeFirstFrameOnly = true
                let still = try await manager.loadImage(with: url, context: stillOptions)
                #expect(still.cacheType == .memory)
                #expect(still.image.frames.count == 1)
            }
        }
    }

    /// The options' encoding fields do not reach the cache's encoding of a thumbnail;
    /// ``ImageContext/imageEncodeOptions`` does.
    @Test func encodingFieldsOfTheDecodeOptionsAreIgnored() throws {
        let manager = ImageManager(cache: ImageCache(namespace: "decode-options-plan", directory: FileManager.default.temporaryDirectory), loader: LoadersManager(loaders: []))
        let url = try #require(URL(string: "https://example.com/a.jpg"))
        var context = Self.context {
            $0.compressionQuality = 0.1
            $0.keepsColorProfile = true
        }
        var plan = ImageLoadPlan(url: url, options: [], context: context, manager: manager, settings: manager.currentSettings)
        #expect(plan.decodeOptions.keepsColorProfile)
        #expect(plan.finalStoreContext.coderOptions.compressionQuality == 1)
        var encode = ImageCoderOptions()
        encode.compressionQuality = 0.5
        context.imageEncodeOptions = encode
        plan = ImageLoadPlan(url: url, options: [], context: context, manager: manager, settings: manager.currentSettings)
        #expect(plan.finalStoreContext.coderOptions.compressionQuality == 0.5)
    }
}
