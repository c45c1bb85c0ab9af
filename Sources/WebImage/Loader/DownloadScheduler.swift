/// The downloader's decisions: which callers share a request, which requests wait and
/// which run, what a cancellation stops, and who gets a finished transfer's outcome.
///
/// The ``Downloader`` feeds it events (a caller subscribes or cancels, a transfer ends,
/// the limit or the suspension changes, everything is cancelled) and performs the actions
/// each event returns: start these transfers, complete those callers, stop that request.
/// It holds the queue (``DownloadQueue``: highest priority first, FIFO or LIFO within
/// one), the running set (at most ``maxConcurrentDownloads``; a stopped request keeps its
/// slot until its connection is gone, so a server never sees more than the limit), and
/// each operation's phase and subscribers (``SharedWork``).
///
/// A plain value with no lock, no I/O and no callback: the downloader keeps it under its
/// one lock and calls handlers and the HTTP client only after releasing it, so the rules
/// are tested alone (`DownloadSchedulerTests`). Not thread-safe by itself.
///
/// ```swift
/// var scheduler = DownloadScheduler(maxConcurrentDownloads: 6, lifo: false)
/// guard case .wait(let subscription, let start) = scheduler.subscribe(subscriber, key: key, options: options) else { return }
/// let ended = scheduler.transferEnded(start[0], succeeded: true)  // → ended.delivery, ended.start
/// ```
struct DownloadScheduler {
    typealias Subscriber = DownloadOperation.Subscriber

    /// Where an operation is in its life; it is forgotten once its outcome is handed out.
    enum Phase: Equatable {
        /// Waiting in the queue.
        case queued
        /// Holding a slot; its request is being built or in flight.
        case running
        /// Holding a slot, but every caller left: its request is being stopped, and no
        /// caller may join it.
        case stopping
        /// The transfer ended; its outcome is being decoded and handed out. No one may join.
        case delivering
    }

    /// A caller's place in a download: the operation it waits on and its id there.
    struct Subscription {
        let operation: DownloadOperation
        let id: Int
    }

    /// What to do after ``subscribe(_:key:options:)``.
    enum SubscribeAction {
        /// The downloader is shut down: fail the caller with `invalidDownloadOperation`.
        case reject
        /// The caller waits on `subscription`; begin the transfers of `start`, which just
        /// got a slot.
        case wait(Subscription, start: [DownloadOperation])
    }

    /// What to do after ``cancel(subscriber:of:)``.
    enum CancelAction {
        /// Nothing: the caller had its completion already.
        case none
        /// Complete the caller with `cancelled`.
        case complete(Subscriber)
        /// Complete the caller with `cancelled` and stop the operation's request: the
        /// caller was the last one waiting for it.
        case completeAndStopRequest(Subscriber, DownloadOperation)
    }

    /// What to do with a finished transfer's outcome.
    enum Delivery {
        /// Nothing: the operation was not running (a stale event).
        case none
        /// Hand the outcome to these callers (every one still waiting) now: the error, or
        /// the bytes when nobody wants an image and no decryptor runs. The operation is
        /// forgotten already: there is nothing to report after.
        case now([Subscriber])
        /// Decrypt and decode first; the callers stay attached (and may still cancel) until
        /// ``takeSubscribers(of:)``. Then report ``deliveryFinished(_:)``.
        case afterDecoding
    }

    /// What to do after ``transferEnded(_:succeeded:)``.
    struct TransferEndedAction {
        /// The queued operations that got the freed slot: begin their transfers.
        var start: [DownloadOperation]
        var delivery: Delivery
    }

    /// What to do after ``cancelAll()`` or ``shutDown()``.
    struct CancelAllAction {
        /// Every caller that was waiting, with the operation it waited on: complete each
        /// with `cancelled` (after that operation's progress reports in flight).
        var cancelled: [(operation: DownloadOperation, subscriber: Subscriber)]
        /// Every running operation: stop its request (a shutdown then waits for each).
        var stopRequests: [DownloadOperation]
    }

    private struct Entry {
        var phase: Phase
        var work = SharedWork<Subscriber>()
        /// How many of the waiting callers want an image (the outcome is then decoded):
        /// counted as callers join and leave, so that a transfer's end need not look at
        /// every caller.
        private(set) var imageCallers = 0

        /// Adds a caller, unless the operation is closed to newcomers.
        mutating func join(_ subscriber: Subscriber, id: Int) -> Bool {
            guard work.join(subscriber, id: id) else { return false }
            if subscriber.decodeOptions != nil { imageCallers += 1 }
            return true
        }

        /// Takes one caller out.
        mutating func leave(id: Int) -> SharedWork<Subscriber>.Departure {
            let departure = work.leave(id: id)
            switch departure {
            case .left(let subscriber), .lastLeft(let subscriber):
                if subscriber.decodeOptions != nil { imageCallers -= 1 }
            case .absent:
                break
            }
            return departure
        }

        /// Takes every caller out.
        mutating func takeAll() -> [(id: Int, subscriber: Subscriber)] {
            imageCallers = 0
            return work.takeAll()
        }
    }

    /// How many operations may hold a slot at once; at least 1.
    private(set) var maxConcurrentDownloads: Int
    /// While `true`, queued operations do not start.
    private(set) var isSuspended = false
    /// After ``shutDown()``: every subscribe is rejected and nothing starts.
    private(set) var isShutDown = false
    private let lifo: Bool
    /// Every operation not yet delivered, with its phase and subscribers.
    private var entries: [DownloadOperation: Entry] = [:]
    /// The operation new callers of each key join: queued or running, until its transfer
    /// ends or its last caller leaves.
    private var joinable: [DownloadOperation.Key: DownloadOperation] = [:]
    private var queue = DownloadQueue()
    /// The operations holding a slot (running or stopping).
    private var running: Set<DownloadOperation> = []
    /// Subscriber ids and queue sequence numbers: one counter, so arrival order is kept.
    private var nextID = 0

    /// A scheduler running at most `maxConcurrentDownloads` (at least 1) at once, newest
    /// first within a priority when `lifo`.
    init(maxConcurrentDownloads: Int, lifo: Bool) {
        self.maxConcurrentDownloads = max(1, maxConcurrentDownloads)
        self.lifo = lifo
    }

    // MARK: - Events

    /// A caller asks for `key`: it joins the open operation for the key (raising a queued
    /// one to its priority, as SDWebImage does), or a new operation is queued for it.
    mutating func subscribe(_ subscriber: Subscriber, key: DownloadOperation.Key, options: DownloadRequestOptions) -> SubscribeAction {
        guard !isShutDown else { return .reject }
        nextID += 1
        let id = nextID
        if let existing = joinable[key], entries[existing]?.join(subscriber, id: id) == true {
            queue.raise(existing, to: options.priority)
            return .wait(Subscription(operation: existing, id: id), start: [])
        }
        let operation = DownloadOperation(key: key, requestOptions: options)
        var entry = Entry(phase: .queued)
        _ = entry.join(subscriber, id: id)
        entries[operation] = entry
        joinable[key] = operation
        queue.append(operation, priority: options.priority, sequence: id)
        return .wait(Subscription(operation: operation, id: id), start: takeStartable())
    }

    /// One caller leaves. The last caller of a queued operation takes it out of the queue;
    /// the last of a running one stops its request (which keeps its slot until it ends).
    mutating func cancel(subscriber id: Int, of operation: DownloadOperation) -> CancelAction {
        // Changed in place through the dictionary, never copied out: a copy of the entry
        // would copy its subscribers at each cancel, O(n) for a URL with n callers.
        guard let departure = entries[operation]?.leave(id: id), let phase = entries[operation]?.phase else { return .none }
        let subscriber: Subscriber
        switch departure {
        case .absent:
            return .none
        case .left(let leaving):
            return .complete(leaving)
        case .lastLeft(let leaving):
            subscriber = leaving
        }
        switch phase {
        case .queued:
            forgetJoinable(operation)
            _ = queue.remove(operation)
            entries[operation] = nil
            return .complete(subscriber)
        case .running:
            forgetJoinable(operation)
            entries[operation]?.phase = .stopping
            return .completeAndStopRequest(subscriber, operation)
        case .stopping, .delivering:
            // The request is already stopping or over; its outcome just has no taker now.
            return .complete(subscriber)
        }
    }

    /// A running operation's transfer ended (or never got sent): its slot goes to the next
    /// queued operations, and its outcome to its callers.
    mutating func transferEnded(_ operation: DownloadOperation, succeeded: Bool) -> TransferEndedAction {
        // One hash for the entry, changed in place through its index (this runs for every
        // transfer).
        guard running.remove(operation) != nil, let index = entries.index(forKey: operation) else {
            return TransferEndedAction(start: [], delivery: .none)
        }
        forgetJoinable(operation)
        entries.values[index].phase = .delivering
        entries.values[index].work.close()
        let decodes = operation.requestOptions.decryptor != nil || entries.values[index].imageCallers > 0
        let delivery: Delivery
        if succeeded, decodes {
            delivery = .afterDecoding
        } else {
            // Nobody can join or leave an outcome handed out at once: forgotten now.
            delivery = .now(entries.values[index].takeAll().map(\.subscriber))
            entries.remove(at: index)
        }
        return TransferEndedAction(start: takeStartable(), delivery: delivery)
    }

    /// The decoded results are ready: takes every caller still waiting (those that
    /// cancelled meanwhile had their completion) so each gets its own.
    mutating func takeSubscribers(of operation: DownloadOperation) -> [(id: Int, subscriber: Subscriber)] {
        entries[operation]?.takeAll() ?? []
    }

    /// Every caller of an operation delivered after decoding had its completion: the
    /// operation is forgotten.
    mutating func deliveryFinished(_ operation: DownloadOperation) {
        guard entries[operation]?.phase == .delivering else { return }
        entries[operation] = nil
    }

    /// Changes the limit (values below 1 count as 1); returns what a larger one lets start.
    mutating func setMaxConcurrentDownloads(_ limit: Int) -> [DownloadOperation] {
        maxConcurrentDownloads = max(1, limit)
        return takeStartable()
    }

    /// Suspends or resumes the queue; returns what resuming lets start.
    mutating func setSuspended(_ suspended: Bool) -> [DownloadOperation] {
        isSuspended = suspended
        return takeStartable()
    }

    /// Empties the queue and detaches every caller of queued and running operations;
    /// running ones are stopped (and keep their slots until they end). Operations already
    /// delivering keep their callers: their outcome is on its way.
    mutating func cancelAll() -> CancelAllAction {
        var cancelled: [(operation: DownloadOperation, subscriber: Subscriber)] = []
        for operation in queue.removeAll() {
            if var entry = entries.removeValue(forKey: operation) {
                cancelled += entry.takeAll().map { (operation, $0.subscriber) }
            }
        }
        let stopping = Array(running)
        for operation in stopping {
            cancelled += entries[operation]?.takeAll().map { (operation, $0.subscriber) } ?? []
            entries[operation]?.phase = .stopping
        }
        joinable.removeAll()
        return CancelAllAction(cancelled: cancelled, stopRequests: stopping)
    }

    /// ``cancelAll()``, and from now on every subscribe is rejected.
    mutating func shutDown() -> CancelAllAction {
        isShutDown = true
        return cancelAll()
    }

    // MARK: - Queries

    /// Callers waiting on an operation not yet delivered, all operations together.
    var subscriberCount: Int {
        entries.values.reduce(0) { $0 + $1.work.subscribers.count }
    }

    /// Requests queued or running; a stopping one no longer counts, though it keeps its slot.
    var currentDownloadCount: Int {
        queue.count + running.reduce(0) { $0 + (entries[$1]?.phase == .running ? 1 : 0) }
    }

    /// Whether the operation's request is being stopped (its callers all left). The
    /// downloader marks the operation itself in the same step
    /// (``DownloadOperation/stopRequest()``) and its transfers read that, without this lock.
    func isStopping(_ operation: DownloadOperation) -> Bool {
        entries[operation]?.phase == .stopping
    }

    /// Whether the operation is queued, running, stopping or being decoded (not yet
    /// forgotten).
    func contains(_ operation: DownloadOperation) -> Bool {
        entries[operation] != nil
    }

    /// The operation's waiting callers, with their ids.
    func subscribers(of operation: DownloadOperation) -> [(id: Int, subscriber: Subscriber)] {
        entries[operation]?.work.subscribers.map { ($0.key, $0.value) } ?? []
    }

    /// The waiting callers that gave a progress handler. Allocates nothing when none did,
    /// as this runs for every body chunk.
    func progressSubscribers(of operation: DownloadOperation) -> [Subscriber] {
        var found: [Subscriber] = []
        guard let subscribers = entries[operation]?.work.subscribers else { return found }
        for subscriber in subscribers.values where subscriber.progress != nil { found.append(subscriber) }
        return found
    }

    /// Whether a caller of the operation wants partial images (and no decryptor stands
    /// between the bytes and the image).
    func wantsPartialImages(_ operation: DownloadOperation) -> Bool {
        guard operation.requestOptions.decryptor == nil, let subscribers = entries[operation]?.work.subscribers else { return false }
        return subscribers.values.contains { $0.progressive }
    }

    /// The destination the operation's body streams to: the earliest caller's, when every
    /// caller waiting wants the bytes in a file (none wants an image or the bytes in
    /// memory); `nil` otherwise.
    func streamingDestination(of operation: DownloadOperation) -> (any DownloadDestination)? {
        guard let subscribers = entries[operation]?.work.subscribers, !subscribers.isEmpty else { return nil }
        var first: (id: Int, destination: any DownloadDestination)?
        for (id, subscriber) in subscribers {
            guard let destination = subscriber.destination, subscriber.decodeOptions == nil else { return nil }
            if first.map({ id < $0.id }) ?? true { first = (id, destination) }
        }
        return first?.destination
    }

    // MARK: - Internals

    /// Moves queued operations to the running set while slots are free and the queue is
    /// not suspended.
    private mutating func takeStartable() -> [DownloadOperation] {
        var start: [DownloadOperation] = []
        while !isSuspended, !isShutDown, running.count < maxConcurrentDownloads, let operation = queue.takeNext(lifo: lifo) {
            running.insert(operation)
            entries[operation]?.phase = .running
            start.append(operation)
        }
        return start
    }

    private mutating func forgetJoinable(_ operation: DownloadOperation) {
        // One hash of the key (a URL) instead of a lookup and a removal.
        if let index = joinable.index(forKey: operation.key), joinable.values[index] == operation {
            joinable.remove(at: index)
        }
    }
}
