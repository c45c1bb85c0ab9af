import Foundation
import Testing
@testable import WebImage

/// The flags a manager passes on to the downloader, seen end to end against a real server:
/// priorities, progressive loads and the certificate policy.
@Suite struct ImageManagerLoaderOptionsTests {
    @Test func priorityFlagsReorderQueuedDownloads() async throws {
        let png = try pngData()
        let names = ["low", "normal", "high"]
        let routes = Dictionary(uniqueKeysWithValues: names.map { ("/\($0).png", pngReply(png)) })
        try await LoopbackServer.with(routes) { server in
            try await ManagerHarness.with { harness in
                harness.downloader.maxConcurrentDownloads = 1
                // Held until all three wait in the queue, so the order is the queue's, not
                // the order in which each load finished its cache query.
                harness.downloader.isSuspended = true
                let manager = harness.makeManager()
                let completions = ManagerCompletions()
                let flags: [ImageOptions] = [.lowPriority, [], .highPriority]
                for (name, options) in zip(names, flags) {
                    _ = manager.loadImage(with: server.url("/\(name).png"), options: options, context: ImageContext(), progress: nil,
                                          completion: completions.handler)
                }
                // Each load asks the disk cache first, on BlockingIO's queue, which other
                // tests' decodes can hold for tens of seconds on a starved machine.
                let deadline = ContinuousClock.now + .seconds(60).scaled
                while harness.downloader.currentDownloadCount < 3, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                #expect(harness.downloader.currentDownloadCount == 3, "the three loads reached the queue")
                #expect(server.requests.isEmpty)
                harness.downloader.isSuspended = false
                await completions.wait(for: 3)
                #expect(completions.all.allSatisfy { (try? $0.get()) != nil })
            }
            #expect(server.requests.map(\.path) == ["/high.png", "/normal.png", "/low.png"])
        }
    }

    @Test func progressiveLoadDeliversPartialImagesAndCachesOnlyTheWholeOne() async throws {
        // A baseline 400x300 JPEG whose second half is held back until the test has seen a
        // partial image (the server trickles a byte at a time meanwhile, so reports go on).
        let jpeg = try Corpus.data("TestICCProfile.jpg")
        let gate = ReplyGate()
        let reply = LoopbackServer.Reply.gated(jpeg, firstPart: jpeg.count / 2, gate: gate, interval: .milliseconds(20), contentType: "image/jpeg")
        try await LoopbackServer.with(["/large.jpg": reply]) { server in
            try await ManagerHarness.with { harness in
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                let partials = LockedValue<[Image]>([])
                var context = ImageContext()
                context.thumbnailPixelSize = ImageSize(width: 200, height: 200)
                let url = server.url("/large.jpg")
                let result = try await manager.loadImage(with: url, options: [.progressiveLoad, .waitStoreCache], context: context, progress: { progress in
                    guard let partial = progress.partialImage else { return }
                    partials.withLock { $0.append(partial) }
                    gate.open()
                })
                let seen = partials.withLock { $0 }
                #expect(!seen.isEmpty)
                #expect(seen.allSatisfy { $0.isIncremental && $0.size.width == 200 })
                #expect(result.cacheType == .none)
                #expect(!result.image.isIncremental)
                #expect(result.image.size == ImageSize(width: 200, height: 150))
                // What the cache keeps is the whole image, never a partial one.
                let again = try await manager.loadImage(with: url, context: context)
                #expect(again.cacheType == .memory)
                #expect(!again.image.isIncremental)
                #expect(server.requestCount("/large.jpg") == 1)
            }
        }
    }

    @Test func withoutProgressiveLoadNoPartialImageIsDelivered() async throws {
        let jpeg = try Corpus.data("TestICCProfile.jpg")
        try await LoopbackServer.with(["/large.jpg": .chunked(jpeg, chunkSize: 1024)]) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let reports = LockedValue<[LoadProgress]>([])
                _ = try await manager.loadImage(with: server.url("/large.jpg"), options: [], context: ImageContext(), progress: { progress in
                    reports.withLock { $0.append(progress) }
                })
                let all = reports.withLock { $0 }
                #expect(all.last?.receivedSize == jpeg.count)
                #expect(all.allSatisfy { $0.partialImage == nil })
            }
        }
    }

    @Test func selfSignedCertificateNeedsAllowInvalidSSLCertificates() async throws {
        let png = try pngData()
        try await LoopbackServer.with(["/a.png": pngReply(png)], tls: true) { server in
            try await ManagerHarness.with { harness in
                let manager = harness.makeManager()
                let url = server.url("/a.png")
                do {
                    _ = try await manager.loadImage(with: url)
                    Issue.record("a self-signed certificate was accepted by default")
                } catch {
                    guard let error = error as? WebImageError, case .network = error else {
                        Issue.record("expected a TLS network error, got \(error)")
                        return
                    }
                }
                // A refused certificate is not the URL's fault: it may be tried again.
                let result = try await manager.loadImage(with: url, options: .allowInvalidSSLCertificates)
                #expect(result.cacheType == .none)
                #expect(result.image.size == ImageSize(width: 40, height: 30))
            }
            #expect(server.requestCount("/a.png") == 1)
        }
    }
}
