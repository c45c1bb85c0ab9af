import Foundation
@testable import WebImage

/// An ``ImageManaging`` for the prefetcher and binding tests: serves images from a
/// closure with a per-URL delay, failure or synchronous answer, and counts what it saw
/// (loads, the most running at once, cancellations, the options of each load).
///
/// Each load runs as a task that sleeps for its delay; cancelling its operation completes
/// it at once with `.cancelled` (like ``DownloadToken``), unless `honoursCancel` is off,
/// which simulates a manager whose result races the cancel and arrives anyway.
final class TestImageManager: ImageManaging {
    /// How one URL is answered.
    struct Plan: Sendable {
        var delay: Duration = .zero
        var failure: WebImageError?
        /// Complete inside `loadImage`, before it returns (a memory hit).
        var synchronous = false
        /// A partial image reported through `progress` before the result.
        var partialImage: Image?
        /// A `.refreshCached` load of a cached image: a `.memory` result at once, then
        /// the refreshed one after `delay`.
        var cachedFirst = false
    }

    private struct Counters {
        var running = 0
        var maxRunning = 0
        var loads = 0
        var cancels = 0
        var options: [URL: ImageOptions] = [:]
    }

    private let image: @Sendable (URL) -> Image?
    private let plan: @Sendable (URL) -> Plan
    private let honoursCancel: Bool
    private let counters = LockedValue(Counters())

    init(
        honoursCancel: Bool = true,
        _ plan: @escaping @Sendable (URL) -> Plan = { _ in Plan() },
        image: @escaping @Sendable (URL) -> Image? = { _ in TestImageManager.pixel() }
    ) {
        self.honoursCancel = honoursCancel
        self.image = image
        self.plan = plan
    }

    /// A new 1x1 image (each call a distinct object, for identity checks).
    static func pixel(_ color: RGBAColor = RGBAColor(red: 10, green: 20, blue: 30, alpha: 255)) -> Image {
        Image(pixels: PixelBuffer(width: 1, height: 1, filling: color))
    }

    var loadCount: Int { counters.withLock { $0.loads } }
    var maxRunning: Int { counters.withLock { $0.maxRunning } }
    var running: Int { counters.withLock { $0.running } }
    var cancelCount: Int { counters.withLock { $0.cancels } }
    func options(for url: URL) -> ImageOptions? { counters.withLock { $0.options[url] } }

    func loadImage(
        with url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<ImageLoadResult, WebImageError>) -> Void
    ) -> ImageLoadOperation {
        guard let url else {
            completion(.failure(.invalidURL("nil URL")))
            return ImageLoadOperation {}
        }
        counters.withLock { counters in
            counters.loads += 1
            counters.running += 1
            counters.maxRunning = max(counters.maxRunning, counters.running)
            counters.options[url] = options
        }
        let plan = plan(url)
        let done = LockedValue(false)
        let finish: @Sendable (Result<ImageLoadResult, WebImageError>) -> Void = { [self] result in
            guard done.withLock({ done in defer { done = true }; return !done }) else { return }
            counters.withLock { $0.running -= 1 }
            completion(result)
        }
        let outcome: @Sendable () -> Result<ImageLoadResult, WebImageError> = { [image] in
            if let failure = plan.failure { return .failure(failure) }
            guard let image = image(url) else { return .failure(.badImageData("no test image for \(url)")) }
            return .success(ImageLoadResult(image: image, data: Data([1, 2, 3]), cacheType: .none, url: url))
        }
        if plan.synchronous {
            finish(outcome())
            return ImageLoadOperation {}
        }
        let task = Task {
            if let partial = plan.partialImage {
                progress?(LoadProgress(receivedSize: 1, expectedSize: 2, url: url, partialImage: partial))
            }
            if plan.cachedFirst, case .success(var cached) = outcome() {
                cached.cacheType = .memory
                completion(.success(cached))
            }
            try? await Task.sleep(for: plan.delay)
            finish(outcome())
        }
        return ImageLoadOperation { [self] in
            counters.withLock { $0.cancels += 1 }
            guard honoursCancel else { return }
            task.cancel()
            finish(.failure(.cancelled))
        }
    }

    func cacheKey(for url: URL?, context: ImageContext) -> String? {
        url?.absoluteString
    }
}
