import Foundation
import Synchronization
import Testing
@testable import WebImage

@Suite("ImageCache under concurrency")
struct ImageCacheConcurrencyTests {
    @Test func concurrentQueriesForOneMissingKeyDecodeOnce() async throws {
        let counter = CountingCoder(delay: 0.05)
        let (cache, directory) = try makeImageCache(coder: counter)
        defer { directory.remove() }
        try cache.storeImageDataToDisk(try Corpus.data("TestImage.jpg"), forKey: "k")
        let images = try await withThrowingTaskGroup(of: Image?.self) { group in
            for _ in 0..<8 { group.addTask { try await cache.image(forKey: "k").image } }
            return try await group.reduce(into: [Image?]()) { $0.append($1) }
        }
        #expect(counter.decodeCount == 1)
        let first = try #require(images.first ?? nil)
        #expect(images.allSatisfy { $0 === first })
        #expect(cache.decodes.inFlightCount == 0)
    }

    @Test func queriesWithDifferentThumbnailSizesDoNotShareADecode() async throws {
        let counter = CountingCoder(delay: 0.02)
        let (cache, directory) = try makeImageCache(coder: counter)
        defer { directory.remove() }
        try cache.storeImageDataToDisk(try Corpus.data("TestImage.jpg"), forKey: "k")
        let sizes = try await withThrowingTaskGroup(of: ImageSize?.self) { group in
            for side in [16, 32, 16, 32] {
                group.addTask {
                    var context = ImageCacheContext()
                    context.coderOptions.thumbnailPixelSize = ImageSize(width: side, height: side)
                    return try await cache.image(forKey: "k", context: context).image?.size
                }
            }
            return try await group.reduce(into: [ImageSize?]()) { $0.append($1) }
        }
        #expect(counter.decodeCount == 2)
        #expect(Set(sizes.compactMap { $0?.width }).count == 2)
    }

    @Test func aCancelledQueryEndsAtOnceAsCancelledWhileOthersGetTheImage() async throws {
        // The decode waits for the test, so it outlasts the cancelled query however long the
        // cooperative pool takes to resume it (a fixed 5 s, 15 s under AddressSanitizer, was
        // once not enough on a loaded machine). A query that waited for the decode would
        // still end, when the safety net opens the gate, and fail the check below.
        let gate = DispatchSemaphore(value: 0)
        let safetyNet = Task {
            try? await Task.sleep(for: Duration.seconds(120).scaled)
            gate.signal()
        }
        defer { safetyNet.cancel() }
        let counter = CountingCoder(gate: gate)
        let (cache, directory) = try makeImageCache(coder: counter)
        defer { directory.remove() }
        try cache.storeImageDataToDisk(try Corpus.data("TestImage.jpg"), forKey: "k")
        // The cancelled query notes whether the shared decode had finished when it ended.
        let cancelled = Task { () -> (any Error, finishedDecodes: Int)? in
            do {
                _ = try await cache.image(forKey: "k")
                return nil
            } catch {
                return (error, counter.finishedCount)
            }
        }
        let patient = Task { try await cache.image(forKey: "k") }
        // Both wait on the one decode before one is cancelled: cancelled earlier, a query
        // ends at its first check and never tests leaving a shared decode. (Whether the
        // decode has begun does not matter: it cannot end before the gate opens. In a pass
        // of busy suites the blocking-work queue may not start it for a long time.)
        let joined = await waitUntil(.seconds(100)) { cache.decodes.waiterCount == 2 }
        #expect(joined, "waiters \(cache.decodes.waiterCount), flights \(cache.decodes.inFlightCount)")
        cancelled.cancel()
        let outcome = try #require(await cancelled.value)
        #expect(outcome.0 as? WebImageError == .cancelled)
        // It ended while the decode was still running: it did not wait for it.
        #expect(outcome.finishedDecodes == 0)
        gate.signal()
        let result = try await patient.value
        #expect(result.cacheType == .disk)
        #expect(result.image != nil)
        #expect(counter.decodeCount == 1)
    }

    @Test func aQueryCancelledBeforeItStartsIsCancelled() async throws {
        let (cache, directory) = try makeImageCache()
        defer { directory.remove() }
        cache.storeImageToMemory(makeImage(), forKey: "k")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await cache.image(forKey: "k")
        }
        await #expect(throws: WebImageError.cancelled) { try await task.value }
    }

    @Test func cancellingEveryWaiterStillLeavesTheCacheUsable() async throws {
        // The decode waits for the test, so all three join it however late the pool starts
        // them; cancelling does not wait for it.
        let gate = DispatchSemaphore(value: 0)
        let counter = CountingCoder(gate: gate)
        let (cache, directory) = try makeImageCache(coder: counter)
        defer { directory.remove() }
        try cache.storeImageDataToDisk(try Corpus.data("TestImage.png"), forKey: "k")
        let tasks = (0..<3).map { _ in Task { try await cache.image(forKey: "k") } }
        #expect(await waitUntil(.seconds(60)) { cache.decodes.waiterCount == 3 })
        for task in tasks { task.cancel() }
        for task in tasks {
            await #expect(throws: WebImageError.cancelled) { try await task.value }
        }
        #expect(cache.decodes.inFlightCount == 0)
        // One pass for the abandoned decode, one for the next query's.
        gate.signal()
        gate.signal()
        #expect(try await cache.image(forKey: "k").image != nil)
    }

    @Test func manyTasksStoringQueryingAndRemovingOverlappingKeys() async throws {
        var config = ImageCache.Configuration()
        config.maxMemoryCount = 5
        config.shouldUseWeakMemoryCache = true
        let (cache, directory) = try makeImageCache(config: config)
        defer { directory.remove() }
        let png = try Corpus.data("TestImage.png")
        let reference = try CodersManager.shared.decode(png)
        let keys = (0..<10).map { "https://a.com/\($0).png" }
        let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    var wrong = 0
                    for i in 0..<60 {
                        let key = keys[(i * 3 + worker) % keys.count]
                        switch (i + worker) % 4 {
                        case 0: try await cache.store(reference, data: png, forKey: key)
                        case 1, 2:
                            if let image = try await cache.image(forKey: key).image, image.pixels != reference.pixels { wrong += 1 }
                        default: await cache.removeImage(forKey: key, cacheType: i % 8 == 3 ? .all : .memory)
                        }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(cache.memoryCache.count <= 5)
        #expect(cache.decodes.inFlightCount == 0)
    }
}
