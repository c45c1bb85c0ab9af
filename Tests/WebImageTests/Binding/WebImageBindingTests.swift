import Foundation
import Synchronization
import Testing
@testable import WebImage

/// SDWebImage's `sd_setImage` behaviours (UIView+WebCache), on a test view.
///
/// Serialized: every test runs on the main actor, and the rapid-retargeting test fills its
/// queue with 40,000 deliveries. Run beside it, the other tests' 5-ms loads waited for the
/// main actor as long as it ran: 19 s in a parallel pass on a starved machine, longer than
/// their waits. Each test checks one view, so none needs another running alongside.
@MainActor
@Suite(.serialized) struct WebImageBindingTests {
    static func url(_ name: String) -> URL { URL(string: "https://example.test/\(name).png")! }

    /// A manager that answers each URL with its own image object, so the test can tell them apart.
    static func manager(
        images: [URL: Image],
        honoursCancel: Bool = true,
        _ plan: @escaping @Sendable (URL) -> TestImageManager.Plan = { _ in TestImageManager.Plan() }
    ) -> TestImageManager {
        TestImageManager(honoursCancel: honoursCancel, plan, image: { images[$0] })
    }

    @Test func showsTheLoadedImageAndCompletesWithIt() async throws {
        let url = Self.url("a"), image = TestImageManager.pixel()
        let view = TestImageView(manager: Self.manager(images: [url: image]) { _ in .init(delay: .milliseconds(5)) })
        var results: [Result<ImageLoadResult, WebImageError>] = []
        view.webImage.setImage(with: url) { results.append($0) }
        #expect(view.webImage.currentURL == url)
        try #require(await waitUntil { !results.isEmpty })
        #expect(view.image === image)
        #expect(results.count == 1)
        #expect(try results[0].get().image === image)
    }

    @Test func rapidRetargetingAlwaysEndsShowingTheLastURLsImage() async throws {
        for honoursCancel in [false, true] {
            let count = 10_000
            let urls = (0..<count).map { Self.url("r\($0)") }
            let images = urls.map { _ in TestImageManager.pixel() }
            let index = Dictionary(uniqueKeysWithValues: images.enumerated().map { (ObjectIdentifier($1), $0) })
            var generator = SplitMix64(seed: 7)
            let delays = Dictionary(uniqueKeysWithValues: urls.map { ($0, Duration.microseconds(Int.random(in: 0...3000, using: &generator))) })
            // With honoursCancel off, replaced loads still deliver their images late, in random order.
            let manager = Self.manager(images: Dictionary(uniqueKeysWithValues: zip(urls, images)), honoursCancel: honoursCancel) {
                .init(delay: delays[$0] ?? .zero)
            }
            let view = TestImageView(manager: manager)
            var completions = 0
            for url in urls {
                view.webImage.setImage(with: url) { _ in completions += 1 }
                if Int.random(in: 0..<50, using: &generator) == 0 { try await Task.sleep(for: .milliseconds(1)) }
            }
            #expect(await waitUntil { completions == count })
            #expect(view.image === images[count - 1])
            #expect(view.webImage.currentURL == urls[count - 1])
            // Never backwards: each image shown belongs to a later load than the one before it.
            let shown = view.history.compactMap { $0.image.flatMap { index[ObjectIdentifier($0)] } }
            #expect(shown == shown.sorted() && Set(shown).count == shown.count)
            #expect(shown.last == count - 1)
            #expect(manager.running == 0 || !honoursCancel)
        }
    }

    @Test func placeholderIsShownAtOnceThenReplaced() async {
        let url = Self.url("a"), image = TestImageManager.pixel(), placeholder = TestImageManager.pixel()
        let view = TestImageView(manager: Self.manager(images: [url: image]) { _ in .init(delay: .milliseconds(20)) })
        var done = false
        view.webImage.setImage(with: url, placeholder: placeholder) { _ in done = true }
        #expect(view.image === placeholder)
        #expect(await waitUntil { done })
        #expect(view.shows([placeholder, image]))
    }

    @Test func delayedPlaceholderIsShownOnlyOnFailure() async throws {
        let good = Self.url("good"), bad = Self.url("bad")
        let image = TestImageManager.pixel(), placeholder = TestImageManager.pixel()
        let manager = Self.manager(images: [good: image]) { url in
            .init(delay: .milliseconds(5), failure: url == bad ? .invalidDownloadStatusCode(404) : nil)
        }
        let view = TestImageView(manager: manager)
        var results: [Result<ImageLoadResult, WebImageError>] = []
        view.webImage.setImage(with: good, placeholder: placeholder, options: .delayPlaceholder) { results.append($0) }
        #expect(view.history.isEmpty)
        try #require(await waitUntil { results.count == 1 })
        #expect(view.shows([image]))

        view.webImage.setImage(with: bad, placeholder: placeholder, options: .delayPlaceholder) { results.append($0) }
        #expect(view.image === image)  // the old image stays while the new one loads
        try #require(await waitUntil { results.count == 2 })
        #expect(view.image === placeholder)
        guard case .failure(.invalidDownloadStatusCode(404)) = results[1] else {
            Issue.record("expected the 404, got \(results[1])")
            return
        }
    }

    @Test func avoidAutoSetImageLeavesTheImageToTheCompletion() async throws {
        let url = Self.url("a"), image = TestImageManager.pixel(), placeholder = TestImageManager.pixel()
        let view = TestImageView(manager: Self.manager(images: [url: image]) { _ in .init(delay: .milliseconds(5)) })
        var delivered: Image?
        view.webImage.setImage(with: url, placeholder: placeholder, options: .avoidAutoSetImage) { result in
            delivered = try? result.get().image
        }
        #expect(await waitUntil { delivered != nil })
        #expect(delivered === image)
        #expect(view.image === placeholder)
        #expect(!view.hasShown(image))
    }

    @Test func cancelCurrentLoadCancelsAndNeverShowsTheResult() async throws {
        let url = Self.url("a"), image = TestImageManager.pixel()
        for honoursCancel in [true, false] {
            let manager = Self.manager(images: [url: image], honoursCancel: honoursCancel) { _ in .init(delay: .milliseconds(30)) }
            let view = TestImageView(manager: manager)
            var results: [Result<ImageLoadResult, WebImageError>] = []
            view.webImage.setImage(with: url) { results.append($0) }
            view.webImage.cancelCurrentLoad()
            #expect(manager.cancelCount == 1)
            try #require(await waitUntil { results.count == 1 })
            guard case .failure(.cancelled) = results[0] else {
                Issue.record("expected cancelled, got \(results[0])")
                continue
            }
            try await Task.sleep(for: .milliseconds(50))
            #expect(!view.hasShown(image))
            #expect(view.webImage.currentURL == url)
        }
    }

    @Test func aNewLoadCancelsOnlyTheLoadWithTheSameOperationKey() async {
        let a = Self.url("a"), b = Self.url("b"), c = Self.url("c")
        let images = [a: TestImageManager.pixel(), b: TestImageManager.pixel(), c: TestImageManager.pixel()]
        let manager = Self.manager(images: images) { _ in .init(delay: .milliseconds(20)) }
        let view = TestImageView(manager: manager)
        var outcomes: [URL: Bool] = [:]
        var badge = ImageContext()
        badge.operationKey = "badge"
        view.webImage.setImage(with: a) { outcomes[a] = (try? $0.get()) != nil }
        view.webImage.setImage(with: b, context: badge) { outcomes[b] = (try? $0.get()) != nil }
        view.webImage.setImage(with: c) { outcomes[c] = (try? $0.get()) != nil }
        #expect(await waitUntil { outcomes.count == 3 })
        #expect(outcomes == [a: false, b: true, c: true])
        #expect(manager.cancelCount == 1)
    }

    /// A `.refreshCached` load shows the cached image first while the refresh runs on. A
    /// new load, or a cancel, must still stop that refresh: the binding used to forget the
    /// operation at the first result, so the refresh ran to its end unwanted.
    @Test func aNewLoadOrACancelStopsTheRefreshAfterTheCachedImage() async throws {
        let a = Self.url("a"), b = Self.url("b")
        for stop in ["new load", "cancel"] {
            // The refresh outlasts the wait for the cached image (60 s at most), so only the
            // new load or the cancel can end it.
            let manager = Self.manager(images: [a: TestImageManager.pixel(), b: TestImageManager.pixel()]) { url in
                url == a ? .init(delay: .seconds(120).scaled, cachedFirst: true) : .init()
            }
            let view = TestImageView(manager: manager)
            var results: [Result<ImageLoadResult, WebImageError>] = []
            view.webImage.setImage(with: a, options: .refreshCached) { results.append($0) }
            #expect(await waitUntil { !results.isEmpty })
            #expect(results.count == 1)
            #expect((try? results.first?.get())?.cacheType == .memory, "the cached image first")
            #expect(manager.running == 1, "the refresh runs on")
            if stop == "new load" {
                view.webImage.setImage(with: b)
            } else {
                view.webImage.cancelCurrentLoad()
            }
            #expect(manager.cancelCount == 1, "\(stop): the refresh is cancelled")
            #expect(results.count == 1, "\(stop): a finished load does not complete again")
        }
    }

    /// A view that starts another load, or cancels, while it is shown the placeholder: the
    /// first load was already replaced, so it must not start (it used to start anyway, and
    /// with its operation never stored, no cancel could reach it).
    @Test func aLoadReplacedWhileItsPlaceholderIsShownNeverStarts() async {
        let a = Self.url("a"), b = Self.url("b"), placeholder = TestImageManager.pixel()
        for replacement in ["new load", "cancel"] {
            let manager = Self.manager(images: [a: TestImageManager.pixel(), b: TestImageManager.pixel()]) { _ in .init(delay: .seconds(30)) }
            let view = TestImageView(manager: manager)
            var results: [Result<ImageLoadResult, WebImageError>] = []
            view.onSetImage = { image in
                guard image === placeholder else { return }
                view.onSetImage = nil
                if replacement == "new load" { view.webImage.setImage(with: b) } else { view.webImage.cancelCurrentLoad() }
            }
            view.webImage.setImage(with: a, placeholder: placeholder) { results.append($0) }
            #expect(manager.options(for: a) == nil, "\(replacement): the replaced load never reached the manager")
            #expect(manager.running == (replacement == "new load" ? 1 : 0))
            guard case .failure(.cancelled)? = results.first, results.count == 1 else {
                Issue.record("\(replacement): expected one cancelled completion, got \(results)")
                continue
            }
            view.webImage.cancelCurrentLoad()
        }
    }

    @Test func memoryHitsAreShownBeforeSetImageReturns() {
        let url = Self.url("a"), image = TestImageManager.pixel(), placeholder = TestImageManager.pixel()
        let view = TestImageView(manager: Self.manager(images: [url: image]) { _ in .init(synchronous: true) })
        var completed = false
        view.webImage.setImage(with: url, placeholder: placeholder) { _ in completed = true }
        #expect(completed)
        #expect(view.image === image)
    }

    @Test func progressiveLoadsShowPartialImagesThenTheFinalOne() async {
        let url = Self.url("a"), image = TestImageManager.pixel(), partial = TestImageManager.pixel()
        let view = TestImageView(manager: Self.manager(images: [url: image]) { _ in
            .init(delay: .milliseconds(20), partialImage: partial)
        })
        var done = false
        view.webImage.setImage(with: url, options: .progressiveLoad) { _ in done = true }
        #expect(await waitUntil { done })
        #expect(view.shows([nil, partial, image]))
    }

    @Test func releasingTheTargetCancelsItsLoadWithoutCompleting() async throws {
        let url = Self.url("a")
        let manager = Self.manager(images: [url: TestImageManager.pixel()]) { _ in .init(delay: .seconds(30)) }
        var view: TestImageView? = TestImageView(manager: manager)
        weak let released = view
        var completions = 0
        view?.webImage.setImage(with: url) { _ in completions += 1 }
        #expect(manager.running == 1)
        view = nil
        #expect(released == nil)
        #expect(await waitUntil { manager.running == 0 })
        #expect(manager.cancelCount == 1)
        try await Task.sleep(for: .milliseconds(20))
        #expect(completions == 0)  // SDWebImage: no completion once the view is gone
    }

    /// A completion that captures the view's owner (`self.label.text = …`, the usual
    /// closure) is let go with the final result. It used to stay in the view's state until
    /// the next load, a cycle (owner, view, state, completion, owner) that kept all of them
    /// alive, and so never cancelled their loads either.
    /// Also for `.refreshCached`, when the result came from the network: only a cached
    /// result may be followed by the refresh's.
    @Test(arguments: [ImageOptions(), .refreshCached])
    func aFinishedLoadLetsGoOfItsCompletion(_ options: ImageOptions) async throws {
        final class Owner {}
        let url = Self.url("a")
        let view = TestImageView(manager: Self.manager(images: [url: TestImageManager.pixel()]) { _ in .init(delay: .milliseconds(5)) })
        var owner: Owner? = Owner()
        weak let released = owner
        var done = false
        view.webImage.setImage(with: url, options: options) { [owner] _ in
            _ = owner
            done = true
        }
        owner = nil
        #expect(released != nil, "the running load holds its completion")
        try #require(await waitUntil { done })
        #expect(released == nil, "the finished load still holds its completion")
    }

    /// A `.refreshCached` load of a cached image whose refresh finds it unchanged gets no
    /// second result, so the slot used to keep its completion for good: one capturing the
    /// view's owner kept owner, view and state alive in a cycle (review finding). Once the
    /// manager lets go of the load's completion, the slot lets go of the caller's. Through
    /// the real manager, with an origin that sends the same bytes again.
    @Test nonisolated func anUnchangedRefreshLetsGoOfItsCompletion() async throws {
        let png = try pngData(width: 8, height: 8)
        try await LoopbackServer.with(["/a.png": pngReply(png)]) { server in
            try await ManagerHarness.with { harness in
                let url = server.url("/a.png")
                let manager = harness.makeManager()
                _ = try await manager.loadImage(with: url, options: .waitStoreCache)
                try await Self.refreshUnchanged(url, manager: manager, requests: { server.requestCount("/a.png") })
            }
        }
    }

    private static func refreshUnchanged(_ url: URL, manager: ImageManager, requests: @escaping () -> Int) async throws {
        final class Owner {}
        let view = TestImageView(manager: manager)
        var owner: Owner? = Owner()
        weak let released = owner
        var results: [ImageCacheType] = []
        view.webImage.setImage(with: url, options: .refreshCached) { [owner] result in
            _ = owner
            results.append((try? result.get())?.cacheType ?? .none)
        }
        owner = nil
        #expect(await waitUntil { !results.isEmpty })
        #expect(results == [.memory], "the cached image first")
        #expect(await waitUntil { requests() == 2 }, "the refresh asked the origin")
        #expect(await waitUntil { released == nil }, "the slot still holds the completion after the refresh ended")
        #expect(results == [.memory], "an unchanged image is not delivered again")
    }

    @Test func aReplacedLoadCompletesCancelledAtOnceEvenIfItsResultArrives() async throws {
        let a = Self.url("a"), b = Self.url("b")
        let images = [a: TestImageManager.pixel(), b: TestImageManager.pixel()]
        let manager = Self.manager(images: images, honoursCancel: false) { url in .init(delay: .milliseconds(url == a ? 10 : 40)) }
        let view = TestImageView(manager: manager)
        var outcomes: [String] = []
        view.webImage.setImage(with: a) { outcomes.append("a: \((try? $0.get()) == nil ? "failed" : "loaded")") }
        view.webImage.setImage(with: b) { outcomes.append("b: \((try? $0.get()) == nil ? "failed" : "loaded")") }
        #expect(outcomes == ["a: failed"])
        #expect(await waitUntil { outcomes.count == 2 })
        try await Task.sleep(for: .milliseconds(20))
        #expect(outcomes == ["a: failed", "b: loaded"])
        #expect(view.image === images[b])
        #expect(!view.hasShown(images[a]!))
    }
}
