import Foundation

/// One load of a prefetch list: which list, which URL of it.
struct PrefetchLoad: Hashable, Sendable {
    let listID: UInt64
    let index: Int
}

/// A callback waiting to be delivered for a list.
enum PrefetchEvent {
    case progress(finished: Int, total: Int, handler: Prefetcher.ProgressHandler)
    case completion(finished: Int, skipped: Int, handler: Prefetcher.CompletionHandler?)
}

/// The prefetcher's record of one list: its URLs, counters and undelivered callbacks.
/// Lives in the prefetcher's locked state; removed once its completion was delivered.
struct PrefetchList {
    let urls: [URL]
    let options: ImageOptions
    let context: ImageContext
    private var progress: Prefetcher.ProgressHandler?
    private var completion: Prefetcher.CompletionHandler?
    private(set) var finished = 0
    private(set) var skipped = 0
    private(set) var isCompleted = false
    private(set) var isCancelled = false
    private var events: [PrefetchEvent] = []
    private var eventHead = 0
    private var isDelivering = false

    init(
        urls: [URL],
        options: ImageOptions,
        context: ImageContext,
        progress: Prefetcher.ProgressHandler?,
        completion: Prefetcher.CompletionHandler?
    ) {
        self.urls = urls
        self.options = options
        self.context = context
        self.progress = progress
        self.completion = completion
    }

    /// Counts one URL as done and queues its progress report (and the completion after the last).
    mutating func record(failed: Bool) {
        guard !isCompleted else { return }
        finished += 1
        if failed { skipped += 1 }
        if let progress { events.append(.progress(finished: finished, total: urls.count, handler: progress)) }
        if finished == urls.count { complete() }
    }

    /// Ends the list now: every URL not done yet counts as skipped (SDWebImage counts
    /// cancelled loads as skipped too).
    mutating func cancel() {
        guard !isCompleted else { return }
        isCancelled = true
        skipped += urls.count - finished
        finished = urls.count
        complete()
    }

    /// Marks the list done and queues its completion; handlers are released after it.
    mutating func complete() {
        guard !isCompleted else { return }
        isCompleted = true
        events.append(.completion(finished: finished, skipped: skipped, handler: completion))
        progress = nil
        completion = nil
    }

    /// Claims delivery for the calling thread; `false` when another thread delivers already.
    mutating func beginDelivery() -> Bool {
        guard !isDelivering else { return false }
        isDelivering = true
        return true
    }

    /// The next undelivered event; `nil` ends the caller's delivery turn.
    mutating func nextEvent() -> PrefetchEvent? {
        guard eventHead < events.count else {
            events.removeAll(keepingCapacity: true)
            eventHead = 0
            isDelivering = false
            return nil
        }
        defer { eventHead += 1 }
        return events[eventHead]
    }

    /// Whether the list can be forgotten: completed and nothing left to deliver.
    var isDrained: Bool { isCompleted && !isDelivering && eventHead >= events.count }
}
