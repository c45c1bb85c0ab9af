import Foundation
import Synchronization
import WebImage

// The Nuke-style manager benchmark: loads per second through ImageManager for 100 URLs
// already in memory (25,000 calls), the synchronous memory lookup alone, and 20,000
// unique URLs (the start of each load, then the whole load with an instant loader).
// Usage: manager-bench [--quick]

/// A loader that answers at once with one small image, so the figures measure the
/// manager, not a network.
struct InstantLoader: ImageLoader {
    let image = Image(pixels: PixelBuffer(width: 1, height: 1, filling: RGBAColor(red: 1, green: 2, blue: 3, alpha: 255)), format: .png)
    func canLoad(_ url: URL) -> Bool { true }
    func load(_ url: URL, options: DownloadRequestOptions, progress: LoadProgressHandler?) async throws(WebImageError) -> ImageLoaderOutput {
        ImageLoaderOutput(image: image, data: Data([0]), url: url)
    }
}

/// Counts completions and wakes the waiter when all arrived.
final class Countdown: Sendable {
    private let state: Mutex<(left: Int, waiter: CheckedContinuation<Void, Never>?)>
    init(_ count: Int) { state = Mutex((count, nil)) }
    func done() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.left -= 1
            return state.left == 0 ? state.waiter : nil
        }
        waiter?.resume()
    }
    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.left == 0 { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}

func seconds(_ duration: Duration) -> Double {
    let (s, a) = duration.components
    return Double(s) + Double(a) / 1e18
}

func report(_ name: String, count: Int, _ duration: Duration) {
    let rate = Double(count) / seconds(duration)
    let perCall = seconds(duration) / Double(count) * 1e9
    print("\(name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(String(format: "%10.0f", rate)) /s  \(String(format: "%8.1f", perCall)) ns/call")
}

let quick = CommandLine.arguments.contains("--quick")
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("manager-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: directory) }

// 1. 100 URLs in memory.
let cache = ImageCache(namespace: "bench", directory: directory)
let manager = ImageManager(cache: cache, loader: InstantLoader())
let urls = (0..<100).compactMap { URL(string: "https://example.com/images/\($0).jpg") }
let image = InstantLoader().image
for url in urls { cache.storeImageToMemory(image, forKey: url.absoluteString) }
let calls = 25_000
let rounds = quick ? 1 : 5

print("manager-bench (\(ProcessInfo.processInfo.activeProcessorCount) cores; best of \(rounds) rounds)")
// Top-level code runs on the main actor; the loop runs in a detached task so each call
// measures the manager, not a hop from the main actor to the pool and back.
let asyncBest = await Task.detached {
    var best = Duration.seconds(1000)
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        var hits = 0
        for index in 0..<calls {
            if let result = try? await manager.loadImage(with: urls[index % 100]), result.cacheType == .memory { hits += 1 }
        }
        precondition(hits == calls, "every call must be a memory hit")
        best = min(best, ContinuousClock.now - start)
    }
    return best
}.value
var best = asyncBest
report("async loadImage, 100 URLs in memory (25,000 calls)", count: calls, best)

best = .seconds(1000)
let syncCalls = quick ? calls : 1_000_000
for _ in 0..<rounds {
    let start = ContinuousClock.now
    var hits = 0
    for index in 0..<syncCalls where manager.cachedImage(for: urls[index % 100]) != nil { hits += 1 }
    precondition(hits == syncCalls)
    best = min(best, ContinuousClock.now - start)
}
report("cachedImage(for:), 100 URLs in memory (\(syncCalls) calls)", count: syncCalls, best)

best = .seconds(1000)
let keys = urls.map(\.absoluteString)
for _ in 0..<rounds {
    let start = ContinuousClock.now
    var hits = 0
    for index in 0..<syncCalls where cache.imageFromMemoryCache(forKey: keys[index % 100]) != nil { hits += 1 }
    precondition(hits == syncCalls)
    best = min(best, ContinuousClock.now - start)
}
report("  (reference) ImageCache memory lookup by key string", count: syncCalls, best)

// 2. 20,000 unique URLs: the start of each load (callback form returns), then the whole
// load through a memory-only cache and the instant loader.
let unique = 20_000
var context = ImageContext()
context.queryCacheType = .memory
context.storeCacheType = .memory
let fresh = ImageManager(cache: ImageCache(namespace: "bench-unique", directory: directory), loader: InstantLoader())
let uniqueURLs = (0..<unique).compactMap { URL(string: "https://example.com/unique/\($0).jpg") }
let countdown = Countdown(unique)
let start = ContinuousClock.now
for url in uniqueURLs {
    fresh.loadImage(with: url, options: [], context: context, progress: nil) { _ in countdown.done() }
}
let started = ContinuousClock.now - start
await countdown.wait()
let finished = ContinuousClock.now - start
report("start of load, 20,000 unique URLs (callback form)", count: unique, started)
report("whole load, 20,000 unique URLs (memory miss, instant loader)", count: unique, finished)
