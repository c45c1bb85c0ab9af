import Foundation
@testable import WebImage

/// Set-up shared by the manager suites: a real ``ImageCache`` in a fresh temporary
/// directory, a downloader that is always shut down, and managers over both.
struct ManagerHarness: Sendable {
    let directoryURL: URL
    let downloader: Downloader
    /// Every manager ``makeManager(cache:)`` made: their background disk writes are waited
    /// for before the directory is removed, or a late write would make it again.
    private let managers = MadeManagers()

    /// A new cache over the harness's directory: the same disk level, an empty memory level.
    func makeCache() -> ImageCache {
        ImageCache(namespace: "manager", directory: directoryURL)
    }

    /// A new manager over `cache` (a new one by default) and the harness's downloader.
    func makeManager(cache: ImageCache? = nil) -> ImageManager {
        adopt(ImageManager(cache: cache ?? makeCache(), loader: LoadersManager(loaders: [downloader])))
    }

    /// Takes a manager made elsewhere into the harness: its background disk writes are
    /// waited for before the directory is removed.
    @discardableResult
    func adopt(_ manager: ImageManager) -> ImageManager {
        managers.list.withLock { $0.append(manager) }
        return manager
    }

    /// Waits for the background disk writes of every manager made so far.
    func waitForBackgroundStores() async {
        for manager in managers.list.withLock({ $0 }) { await manager.waitForBackgroundStores() }
    }

    /// A lock is not copyable; the harness is, so the list lives in a class.
    private final class MadeManagers: Sendable {
        let list = LockedValue<[ImageManager]>([])
    }

    /// Runs `body` with a fresh harness and removes everything afterwards. `timeout` is the
    /// downloader's idle time-out (times ``TestTime/scale``); by default as long as
    /// ``LoaderTesting/outlastingTimeout``, as for the loader tests: a test about a time-out
    /// gives its own.
    static func with<T: Sendable>(timeout: Duration = LoaderTesting.outlastingTimeout, _ body: (ManagerHarness) async throws -> T) async throws -> T {
        let directory = try TemporaryDirectory()
        var config = Downloader.Configuration()
        config.timeout = timeout.scaled
        let harness = ManagerHarness(directoryURL: directory.url, downloader: Downloader(config: config))
        defer { directory.remove() }
        // Waits for the writes and shuts the downloader down whether `body` threw or not.
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(harness))
        } catch {
            outcome = .failure(error)
        }
        await harness.waitForBackgroundStores()
        try await harness.downloader.shutdown()
        return try outcome.get()
    }
}

/// PNG bytes of a `width`×`height` image of one colour.
func pngData(width: Int = 40, height: Int = 30, color: RGBAColor = RGBAColor(red: 200, green: 40, blue: 10, alpha: 255)) throws -> Data {
    try PNGCoder().encode(makeImage(width: width, height: height, color: color), as: .png, options: ImageCoderOptions())
}

/// The reply serving `data` as a PNG.
func pngReply(_ data: Data) -> LoopbackServer.Reply {
    .ok(data, contentType: "image/png")
}

/// A transformer with a chosen key that flips the image horizontally, for key and flow tests.
struct KeyedFlip: ImageTransformer {
    let key: String
    init(_ key: String = "KEY") { self.key = key }
    func transform(_ image: Image) throws -> Image {
        try FlipTransformer(horizontal: true).transform(image)
    }
}

/// Records every completion of a callback-form load.
final class ManagerCompletions: Sendable {
    private let results = LockedValue<[Result<ImageLoadResult, WebImageError>]>([])

    var handler: @Sendable (Result<ImageLoadResult, WebImageError>) -> Void {
        { [self] result in results.withLock { $0.append(result) } }
    }

    var all: [Result<ImageLoadResult, WebImageError>] { results.withLock { $0 } }

    /// Waits until `count` completions arrived (or sixty seconds, scaled, passed:
    /// generous, since it returns as soon as they arrive, and on a starved machine a load's
    /// disk-cache query and decode wait for BlockingIO's queue behind other tests' decodes).
    func wait(for count: Int) async {
        _ = await waitUntil(.seconds(60)) { all.count >= count }
    }
}

/// Waits until `manager` has no load in flight (or sixty seconds, scaled, passed; see
/// ``ManagerCompletions/wait(for:)``).
func waitUntilIdle(_ manager: ImageManager) async {
    _ = await waitUntil(.seconds(60)) { !manager.isRunning }
}

extension ImageLoadResult {
    /// The first pixel's colour.
    var firstPixel: RGBAColor { image.pixels[pixel: 0, 0] }
}
