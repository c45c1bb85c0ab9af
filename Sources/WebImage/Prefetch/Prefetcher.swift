import Foundation

/// Loads lists of images into the cache ahead of need: SDWebImage's `SDWebImagePrefetcher`.
///
/// Each call to ``prefetch(urls:options:context:progress:completion:)`` starts an
/// independent list with its own ``PrefetchToken``, counters and callbacks; the prefetcher
/// runs at most ``maxConcurrentPrefetchCount`` loads at once across all lists, first come
/// first served. Loads go through the ``ImageManaging`` given at creation, with
/// ``options`` (`.lowPriority` by default, so prefetching yields to visible images) and
/// ``context`` unless a call passes its own.
///
/// Thread-safe. For each list, `progress` and `completion` are called from an arbitrary
/// thread, one at a time and in order; `completion` is called exactly once, last.
///
/// ```swift
/// let prefetcher = Prefetcher(manager: manager)
/// prefetcher.prefetch(urls: urls, progress: { done, total in print(done, "/", total) },
///                     completion: { finished, skipped in print(finished, skipped) })
/// ```
public final class Prefetcher: Sendable {
    /// Receives `(finished, total)` after each URL of a list is done, loaded or not.
    public typealias ProgressHandler = @Sendable (_ finished: Int, _ total: Int) -> Void
    /// Receives `(finished, skipped)` once, when the list is done or cancelled.
    public typealias CompletionHandler = @Sendable (_ finished: Int, _ skipped: Int) -> Void
    /// Receives each URL and the result the manager gave for it.
    public typealias LoadHandler = @Sendable (_ url: URL, _ result: Result<ImageLoadResult, WebImageError>) -> Void
    /// Receives each URL and the result of storing its original bytes, for the
    /// ``Destination/diskCache`` destination.
    public typealias DataLoadHandler = @Sendable (_ url: URL, _ result: Result<OriginalDataResult, WebImageError>) -> Void

    /// What a prefetched URL becomes (Nuke's `ImagePrefetcher.Destination`).
    public enum Destination: Sendable, Equatable {
        /// A decoded image, stored as any load stores it (memory and disk by default, as
        /// the list's context says): SDWebImage's prefetcher. The default.
        case memoryCache
        /// The original bytes in the disk cache, never decoded: each download streams into
        /// its cache entry as it arrives (``ImageManaging/loadOriginalData(with:options:context:progress:completion:)``),
        /// so memory per load is a buffer, not the body. For warming a cache of originals;
        /// the thumbnail and transformer of the context are not applied.
        case diskCache
    }

    /// The manager every load goes through.
    public let manager: any ImageManaging
    /// Called with every result the manager reports, before the list counts it: SDWebImage's
    /// `imagePrefetcher:didPrefetchURL:` delegate call, with the outcome (what a caller
    /// needs to show per-URL lines or count bytes without wrapping the manager). Called
    /// from an arbitrary thread, possibly for several loads at once. Once per URL through
    /// ``ImageManager``, with `.refreshCached` too: a refresh holds its slot until it is
    /// over and reports the refreshed image, or the cached one when it did not change
    /// (another manager's refresh may report twice, as its callback form does). Default
    /// `nil`.
    public let loadHandler: LoadHandler?
    /// Called with every result of a ``Destination/diskCache`` load, like ``loadHandler``
    /// for images. Default `nil`.
    public let dataLoadHandler: DataLoadHandler?
    /// What each URL becomes; fixed at creation. Default ``Destination/memoryCache``.
    public let destination: Destination
    let state: LockedValue<State>

    /// Creates a prefetcher that loads images through `manager` (the
    /// ``Destination/memoryCache`` destination) and reports each load's result to
    /// `loadHandler`.
    public convenience init(manager: any ImageManaging, maxConcurrentPrefetchCount: Int = 3, loadHandler: LoadHandler? = nil) {
        self.init(manager: manager, maxConcurrentPrefetchCount: maxConcurrentPrefetchCount, destination: .memoryCache, loadHandler: loadHandler, dataLoadHandler: nil)
    }

    /// Creates a prefetcher that loads through `manager` into `destination` and reports
    /// each ``Destination/diskCache`` load's result to `dataLoadHandler`.
    public convenience init(manager: any ImageManaging, maxConcurrentPrefetchCount: Int = 3, destination: Destination, dataLoadHandler: DataLoadHandler? = nil) {
        self.init(manager: manager, maxConcurrentPrefetchCount: maxConcurrentPrefetchCount, destination: destination, loadHandler: nil, dataLoadHandler: dataLoadHandler)
    }

    private init(
        manager: any ImageManaging,
        maxConcurrentPrefetchCount: Int,
        destination: Destination,
        loadHandler: LoadHandler?,
        dataLoadHandler: DataLoadHandler?
    ) {
        self.manager = manager
        self.destination = destination
        self.dataLoadHandler = dataLoadHandler
        self.loadHandler = loadHandler
        state = LockedValue(State(maxConcurrent: max(1, maxConcurrentPrefetchCount)))
    }

    /// How many loads run at once across all lists; default 3. Values below 1 count as 1;
    /// raising it starts queued loads at once.
    public var maxConcurrentPrefetchCount: Int {
        get { state.withLock { $0.maxConcurrent } }
        set {
            state.withLock { $0.maxConcurrent = max(1, newValue) }
            startQueuedLoads()
        }
    }

    /// The options of lists started without their own; default `.lowPriority`.
    public var options: ImageOptions {
        get { state.withLock { $0.defaultOptions } }
        set { state.withLock { $0.defaultOptions = newValue } }
    }

    /// The context of lists started without their own; default empty.
    public var context: ImageContext {
        get { state.withLock { $0.defaultContext } }
        set { state.withLock { $0.defaultContext = newValue } }
    }

    /// Lists started and not yet completed.
    public var runningListCount: Int {
        state.withLock { state in state.lists.values.count { !$0.isCompleted } }
    }

    /// Starts prefetching `urls` as one list and returns its token.
    ///
    /// `progress` gets `(finished, total)` after each URL; `completion` gets
    /// `(finished, skipped)` once at the end, where `skipped` counts the URLs that failed
    /// or were cancelled. An empty list completes with `(0, 0)` before this returns.
    @discardableResult
    public func prefetch(
        urls: [URL],
        options: ImageOptions? = nil,
        context: ImageContext? = nil,
        progress: ProgressHandler? = nil,
        completion: CompletionHandler? = nil
    ) -> PrefetchToken {
        let id = state.withLock { state -> UInt64 in
            state.nextListID += 1
            let id = state.nextListID
            state.lists[id] = PrefetchList(
                urls: urls,
                options: options ?? state.defaultOptions,
                context: context ?? state.defaultContext,
                progress: progress,
                completion: completion
            )
            if urls.isEmpty {
                state.lists[id]?.complete()
            } else {
                state.enqueue(listID: id, count: urls.count)
            }
            return id
        }
        let token = PrefetchToken(urls: urls, id: id, prefetcher: self)
        if urls.isEmpty {
            deliverEvents(listID: id)
        } else {
            startQueuedLoads()
        }
        return token
    }

    /// Cancels every list, as if each token were cancelled.
    public func cancelPrefetching() {
        let (ids, operations) = state.withLock { state -> ([UInt64], [ImageLoadOperation]) in
            state.clearQueue()
            var ids: [UInt64] = []
            var operations: [ImageLoadOperation] = []
            for id in state.lists.keys {
                operations += state.cancelList(id)
                ids.append(id)
            }
            return (ids, operations)
        }
        for operation in operations { operation.cancel() }
        for id in ids { deliverEvents(listID: id) }
    }

    func cancel(listID id: UInt64) {
        let operations = state.withLock { $0.cancelList(id) }
        for operation in operations { operation.cancel() }
        deliverEvents(listID: id)
        // The dropped list's queue entries are skipped when reached; its running loads
        // keep their slots until the manager reports them, so the limit stays true.
    }
}

extension Prefetcher {
    /// The process-wide prefetcher, loading through ``ImageManager/shared``.
    public static let shared = Prefetcher(manager: ImageManager.shared)
}

/// The `async` face of the prefetcher: one list per call, cancelled with the calling task.
extension Prefetcher {
    /// Prefetches `urls` as one list and returns how it ended. Cancelling the calling task
    /// cancels the list (the URLs not done count as skipped) and returns at once; from a
    /// task already cancelled, no load starts and every URL is skipped.
    public func prefetch(
        urls: [URL],
        options: ImageOptions? = nil,
        context: ImageContext? = nil,
        progress: ProgressHandler? = nil
    ) async -> PrefetchResult {
        let total = urls.count
        // The list would start its loads and cancel them at once, requests sent and all.
        guard !Task.isCancelled else { return PrefetchResult(finished: total, skipped: total, total: total) }
        return await PendingCancellation.awaitCallback { completion in
            let token = prefetch(urls: urls, options: options, context: context, progress: progress) { finished, skipped in
                completion(PrefetchResult(finished: finished, skipped: skipped, total: total))
            }
            return { token.cancel() }
        }
    }
}

/// The handle on one list given to ``Prefetcher/prefetch(urls:options:context:progress:completion:)``:
/// SDWebImage's `SDWebImagePrefetchToken`.
///
/// Each list has its own token, counters and callbacks; cancelling one list leaves the
/// others running. Thread-safe; cancelling twice, or after the list finished, does nothing.
///
/// ```swift
/// let token = prefetcher.prefetch(urls: urls) { finished, skipped in print(finished, skipped) }
/// token.cancel()   // the URLs not loaded yet count as skipped; completion runs once
/// ```
public final class PrefetchToken: Sendable {
    /// The URLs of the list, in the order given.
    public let urls: [URL]
    let id: UInt64
    private let prefetcher: Prefetcher

    init(urls: [URL], id: UInt64, prefetcher: Prefetcher) {
        self.urls = urls
        self.id = id
        self.prefetcher = prefetcher
    }

    /// Stops the list: queued URLs are dropped, running loads are cancelled, and the
    /// completion is called (once) with every URL not yet finished counted as skipped.
    public func cancel() {
        prefetcher.cancel(listID: id)
    }
}

/// How a prefetched list ended: what ``Prefetcher/prefetch(urls:options:context:progress:)``
/// returns and the completion handler receives.
///
/// Counts follow SDWebImage: `finished` counts every URL the list is done with, loaded or
/// not, and `skipped` those among them that failed or were cancelled, so a list that ran to
/// its end (or was cancelled) has `finished == total`.
///
/// ```swift
/// let result = await prefetcher.prefetch(urls: urls)
/// print("\(result.loaded) loaded, \(result.skipped) skipped")
/// ```
public struct PrefetchResult: Sendable, Equatable {
    /// URLs the list is done with (loaded, failed or cancelled).
    public var finished: Int
    /// URLs that failed or were cancelled.
    public var skipped: Int
    /// URLs in the list.
    public var total: Int

    /// Creates a result.
    public init(finished: Int, skipped: Int, total: Int) {
        self.finished = finished
        self.skipped = skipped
        self.total = total
    }

    /// URLs whose image was loaded (from a cache or the network).
    public var loaded: Int { finished - skipped }
}
