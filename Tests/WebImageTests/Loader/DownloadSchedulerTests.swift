import Foundation
import Testing
@testable import WebImage

/// The downloader's decisions alone, with no server, thread or clock: events in, actions
/// out. Coalescing, ordering, the limit, the three kinds of cancellation, and what a
/// finished transfer hands to whom.
@Suite struct DownloadSchedulerTests {
    typealias Subscriber = DownloadOperation.Subscriber

    /// Names the callers whose completion ran, so a test can say which callers an action
    /// carried.
    final class Ledger: Sendable {
        private let names = LockedValue<[String]>([])

        func record(_ name: String) { names.withLock { $0.append(name) } }

        /// The names recorded since the last call, sorted (actions carry callers in no
        /// particular order).
        func take() -> [String] {
            names.withLock { names in
                defer { names = [] }
                return names.sorted()
            }
        }
    }

    let ledger = Ledger()

    private func subscriber(_ name: String, image: Bool = false, progressive: Bool = false, progress: Bool = false) -> Subscriber {
        let ledger = ledger
        var handler: LoadProgressHandler?
        if progress { handler = { _ in } }
        let completion: @Sendable (Result<DownloadOperation.Delivery, WebImageError>) -> Void = { _ in ledger.record(name) }
        return Subscriber(decodeOptions: image ? ImageCoderOptions() : nil, progressive: progressive, progress: handler, completion: completion)
    }

    private func key(_ name: String, insecure: Bool = false) throws -> DownloadOperation.Key {
        DownloadOperation.Key(url: try #require(URL(string: "http://127.0.0.1/\(name)")), allowsInvalidCertificates: insecure)
    }

    private func options(_ priority: DownloadPriority = .normal) -> DownloadRequestOptions {
        var options = DownloadRequestOptions()
        options.priority = priority
        return options
    }

    /// Subscribes `name` to the key of the same name; returns its subscription and the
    /// operations the event started.
    private func subscribe(
        _ scheduler: inout DownloadScheduler,
        _ name: String,
        key: String? = nil,
        priority: DownloadPriority = .normal,
        image: Bool = false
    ) throws -> (subscription: DownloadScheduler.Subscription, start: [DownloadOperation]) {
        let action = scheduler.subscribe(subscriber(name, image: image), key: try self.key(key ?? name), options: options(priority))
        guard case .wait(let subscription, let start) = action else {
            Issue.record("subscribe was rejected")
            throw CancellationError()
        }
        return (subscription, start)
    }

    /// The names of the callers an action carried: runs their completions.
    private func names(_ subscribers: [Subscriber]) -> [String] {
        for subscriber in subscribers { subscriber.completion(.failure(.cancelled)) }
        return ledger.take()
    }

    private func names(_ action: DownloadScheduler.CancelAction) -> (names: [String], stops: DownloadOperation?) {
        switch action {
        case .none: return ([], nil)
        case .complete(let subscriber): return (names([subscriber]), nil)
        case .completeAndStopRequest(let subscriber, let operation): return (names([subscriber]), operation)
        }
    }

    private func delivered(_ delivery: DownloadScheduler.Delivery) -> [String]? {
        guard case .now(let subscribers) = delivery else { return nil }
        return names(subscribers)
    }

    // MARK: - Coalescing

    @Test func callersOfOneKeyShareOneOperation() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 6, lifo: false)
        let first = try subscribe(&scheduler, "a", key: "cat.png")
        let second = try subscribe(&scheduler, "b", key: "cat.png")
        #expect(first.subscription.operation === second.subscription.operation)
        #expect(first.subscription.id != second.subscription.id)
        #expect(first.start == [first.subscription.operation])
        #expect(second.start.isEmpty)
        #expect(scheduler.currentDownloadCount == 1)
        #expect(scheduler.subscribers(of: first.subscription.operation).count == 2)
    }

    @Test func aDifferentCertificatePolicyIsADifferentRequest() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 6, lifo: false)
        let strict = scheduler.subscribe(subscriber("a"), key: try key("cat.png"), options: options())
        let lax = scheduler.subscribe(subscriber("b"), key: try key("cat.png", insecure: true), options: options())
        guard case .wait(let one, _) = strict, case .wait(let other, _) = lax else {
            Issue.record("subscribe was rejected")
            return
        }
        #expect(one.operation !== other.operation)
        #expect(scheduler.currentDownloadCount == 2)
    }

    @Test func aCallerArrivingAfterTheTransferEndedGetsANewRequest() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 6, lifo: false)
        let first = try subscribe(&scheduler, "a", key: "cat.png", image: true)
        let ended = scheduler.transferEnded(first.subscription.operation, succeeded: true)
        guard case .afterDecoding = ended.delivery else {
            Issue.record("a caller wanting an image is delivered after decoding")
            return
        }
        let late = try subscribe(&scheduler, "b", key: "cat.png")
        #expect(late.subscription.operation !== first.subscription.operation)
        #expect(late.start == [late.subscription.operation])
        // The delivering operation's callers are unchanged by the newcomer.
        #expect(names(scheduler.takeSubscribers(of: first.subscription.operation).map(\.subscriber)) == ["a"])
    }

    @Test func aCallerArrivingAfterTheLastOneLeftARunningRequestGetsANewOne() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 6, lifo: false)
        let first = try subscribe(&scheduler, "a", key: "cat.png")
        _ = scheduler.cancel(subscriber: first.subscription.id, of: first.subscription.operation)
        #expect(scheduler.isStopping(first.subscription.operation))
        let next = try subscribe(&scheduler, "b", key: "cat.png")
        #expect(next.subscription.operation !== first.subscription.operation)
        #expect(next.start == [next.subscription.operation])
    }

    // MARK: - Order and limit

    private func startOrder(lifo: Bool) throws -> [String] {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 1, lifo: lifo)
        var current = try subscribe(&scheduler, "first").subscription.operation
        let queued: [(String, DownloadPriority)] = [("0", .normal), ("1", .low), ("2", .high), ("3", .normal), ("4", .high)]
        for (name, priority) in queued {
            #expect(try subscribe(&scheduler, name, priority: priority).start.isEmpty)
        }
        var order: [String] = []
        while true {
            let ended = scheduler.transferEnded(current, succeeded: false)
            _ = delivered(ended.delivery)
            guard let next = ended.start.first else { break }
            #expect(ended.start.count == 1)
            order.append(next.url.lastPathComponent)
            current = next
        }
        return order
    }

    @Test func fifoStartsTheOldestOfTheHighestPriorityFirst() throws {
        #expect(try startOrder(lifo: false) == ["2", "4", "0", "3", "1"])
    }

    @Test func lifoStartsTheNewestOfTheHighestPriorityFirst() throws {
        #expect(try startOrder(lifo: true) == ["4", "2", "3", "0", "1"])
    }

    @Test func joiningAQueuedRequestRaisesItToTheNewCallersPriority() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 1, lifo: false)
        let running = try subscribe(&scheduler, "running").subscription.operation
        _ = try subscribe(&scheduler, "a", key: "slow.png", priority: .low)
        _ = try subscribe(&scheduler, "b", key: "normal.png", priority: .normal)
        _ = try subscribe(&scheduler, "c", key: "slow.png", priority: .high)
        let ended = scheduler.transferEnded(running, succeeded: false)
        #expect(ended.start.map(\.url.lastPathComponent) == ["slow.png"])
    }

    @Test func neverRunsMoreThanTheLimitAndRaisingItStartsQueuedRequests() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 2, lifo: false)
        var started: [DownloadOperation] = []
        for index in 0..<5 { started += try subscribe(&scheduler, "\(index)").start }
        #expect(started.map(\.url.lastPathComponent) == ["0", "1"])
        #expect(scheduler.currentDownloadCount == 5)
        let more = scheduler.setMaxConcurrentDownloads(4)
        #expect(more.map(\.url.lastPathComponent) == ["2", "3"])
        #expect(scheduler.setMaxConcurrentDownloads(0).isEmpty)
        #expect(scheduler.maxConcurrentDownloads == 1)
    }

    @Test func suspensionHoldsTheQueueAndResumingStartsIt() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 2, lifo: false)
        #expect(scheduler.setSuspended(true).isEmpty)
        #expect(try subscribe(&scheduler, "a").start.isEmpty)
        #expect(try subscribe(&scheduler, "b").start.isEmpty)
        #expect(scheduler.currentDownloadCount == 2)
        #expect(scheduler.setSuspended(false).map(\.url.lastPathComponent) == ["a", "b"])
    }

    // MARK: - Cancellation

    @Test func cancellingOneOfSeveralCallersCompletesOnlyIt() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 6, lifo: false)
        let a = try subscribe(&scheduler, "a", key: "cat.png").subscription
        let b = try subscribe(&scheduler, "b", key: "cat.png").subscription
        let action = names(scheduler.cancel(subscriber: a.id, of: a.operation))
        #expect(action.names == ["a"])
        #expect(action.stops == nil)
        #expect(!scheduler.isStopping(a.operation))
        #expect(scheduler.currentDownloadCount == 1)
        #expect(scheduler.subscribers(of: b.operation).map(\.id) == [b.id])
    }

    @Test func cancellingTheLastCallerOfARunningRequestStopsItButKeepsItsSlot() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 1, lifo: false)
        let a = try subscribe(&scheduler, "a").subscription
        let action = names(scheduler.cancel(subscriber: a.id, of: a.operation))
        #expect(action.names == ["a"])
        #expect(action.stops === a.operation)
        #expect(scheduler.isStopping(a.operation))
        #expect(scheduler.currentDownloadCount == 0)
        // The stopped request holds its slot until its connection is gone.
        #expect(try subscribe(&scheduler, "b").start.isEmpty)
        let ended = scheduler.transferEnded(a.operation, succeeded: false)
        #expect(delivered(ended.delivery) == [])
        #expect(ended.start.map(\.url.lastPathComponent) == ["b"])
    }

    @Test func cancellingTheLastCallerOfAQueuedRequestDropsItWithoutStoppingAnything() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 1, lifo: false)
        let running = try subscribe(&scheduler, "running").subscription
        let queued = try subscribe(&scheduler, "queued").subscription
        _ = try subscribe(&scheduler, "next")
        let action = names(scheduler.cancel(subscriber: queued.id, of: queued.operation))
        #expect(action.names == ["queued"])
        #expect(action.stops == nil)
        #expect(!scheduler.contains(queued.operation))
        #expect(scheduler.currentDownloadCount == 2)
        // The dropped entry is skipped: the freed slot goes to the next live one.
        let ended = scheduler.transferEnded(running.operation, succeeded: false)
        #expect(ended.start.map(\.url.lastPathComponent) == ["next"])
    }

    @Test func cancellingTwiceOrAfterTheOutcomeDoesNothing() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 6, lifo: false)
        let a = try subscribe(&scheduler, "a", key: "cat.png").subscription
        let b = try subscribe(&scheduler, "b", key: "cat.png").subscription
        _ = names(scheduler.cancel(subscriber: a.id, of: a.operation))
        #expect(names(scheduler.cancel(subscriber: a.id, of: a.operation)).names == [])
        let ended = scheduler.transferEnded(b.operation, succeeded: false)
        #expect(delivered(ended.delivery) == ["b"])
        #expect(names(scheduler.cancel(subscriber: b.id, of: b.operation)).names == [])
    }

    @Test func cancellingAllEndsQueuedAndRunningCallersAndStopsRunningRequests() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 1, lifo: false)
        let running = try subscribe(&scheduler, "running").subscription
        _ = try subscribe(&scheduler, "queued")
        let action = scheduler.cancelAll()
        #expect(names(action.cancelled.map(\.subscriber)) == ["queued", "running"])
        #expect(action.stopRequests == [running.operation])
        #expect(scheduler.currentDownloadCount == 0)
        // The slot stays taken until the stopped request ends; then nothing is left to start.
        #expect(try subscribe(&scheduler, "later").start.isEmpty)
        let ended = scheduler.transferEnded(running.operation, succeeded: false)
        #expect(delivered(ended.delivery) == [])
        #expect(ended.start.map(\.url.lastPathComponent) == ["later"])
    }

    @Test func cancellingAllLeavesDeliveringCallersTheirOutcome() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 1, lifo: false)
        let decoding = try subscribe(&scheduler, "decoding", image: true).subscription
        _ = scheduler.transferEnded(decoding.operation, succeeded: true)
        let action = scheduler.cancelAll()
        #expect(action.cancelled.isEmpty)
        #expect(action.stopRequests.isEmpty)
        #expect(names(scheduler.takeSubscribers(of: decoding.operation).map(\.subscriber)) == ["decoding"])
    }

    @Test func afterShutDownCallersAreRejectedAndNothingStarts() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 1, lifo: false)
        let running = try subscribe(&scheduler, "running").subscription
        let action = scheduler.shutDown()
        #expect(names(action.cancelled.map(\.subscriber)) == ["running"])
        #expect(action.stopRequests == [running.operation])
        guard case .reject = scheduler.subscribe(subscriber("late"), key: try key("late"), options: options()) else {
            Issue.record("a shut-down scheduler accepted a caller")
            return
        }
        #expect(scheduler.setSuspended(false).isEmpty)
        #expect(scheduler.transferEnded(running.operation, succeeded: false).start.isEmpty)
    }

    // MARK: - Outcomes

    @Test func aFailedTransferGoesToEveryCallerAtOnceAndFreesItsSlot() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 1, lifo: false)
        let a = try subscribe(&scheduler, "a", key: "cat.png", image: true).subscription
        _ = try subscribe(&scheduler, "b", key: "cat.png")
        _ = try subscribe(&scheduler, "next")
        let ended = scheduler.transferEnded(a.operation, succeeded: false)
        #expect(delivered(ended.delivery) == ["a", "b"])
        #expect(ended.start.map(\.url.lastPathComponent) == ["next"])
        // Handed out at once, the operation is forgotten in the same step.
        #expect(!scheduler.contains(a.operation))
        #expect(names(scheduler.cancel(subscriber: a.id, of: a.operation)).names == [])
    }

    @Test func bytesOnlyCallersGetTheBodyAtOnce() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 6, lifo: false)
        let a = try subscribe(&scheduler, "a", key: "cat.png").subscription
        _ = try subscribe(&scheduler, "b", key: "cat.png")
        #expect(delivered(scheduler.transferEnded(a.operation, succeeded: true).delivery) == ["a", "b"])
        #expect(!scheduler.contains(a.operation))
        // A new caller of the URL starts a new request.
        let again = try subscribe(&scheduler, "c", key: "cat.png").subscription
        #expect(again.operation != a.operation)
    }

    @Test func aDecryptorOrAnImageCallerDefersDeliveryUntilDecodedAndCallersMayStillLeave() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 6, lifo: false)
        var decrypting = options()
        decrypting.decryptor = Decryptor { data, _ in data }
        guard case .wait(let bytes, _) = scheduler.subscribe(subscriber("bytes"), key: try key("secret.png"), options: decrypting) else {
            Issue.record("subscribe was rejected")
            return
        }
        guard case .afterDecoding = scheduler.transferEnded(bytes.operation, succeeded: true).delivery else {
            Issue.record("a decryptor runs before the bytes are handed out")
            return
        }
        let a = try subscribe(&scheduler, "a", key: "cat.png", image: true).subscription
        let b = try subscribe(&scheduler, "b", key: "cat.png").subscription
        guard case .afterDecoding = scheduler.transferEnded(a.operation, succeeded: true).delivery else {
            Issue.record("an image caller is delivered after decoding")
            return
        }
        #expect(names(scheduler.cancel(subscriber: b.id, of: b.operation)).names == ["b"])
        #expect(names(scheduler.takeSubscribers(of: a.operation).map(\.subscriber)) == ["a"])
        #expect(scheduler.takeSubscribers(of: a.operation).isEmpty)
        scheduler.deliveryFinished(a.operation)
        #expect(!scheduler.contains(a.operation))
    }

    @Test func staleEventsChangeNothing() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 1, lifo: false)
        let running = try subscribe(&scheduler, "running").subscription
        let queued = try subscribe(&scheduler, "queued").subscription
        // A queued operation's transfer cannot end; the event is ignored.
        let early = scheduler.transferEnded(queued.operation, succeeded: true)
        guard case .none = early.delivery else {
            Issue.record("a queued operation delivered")
            return
        }
        #expect(early.start.isEmpty)
        let ended = scheduler.transferEnded(running.operation, succeeded: false)
        #expect(ended.start == [queued.operation])
        // Ending the same transfer twice frees no second slot.
        let again = scheduler.transferEnded(running.operation, succeeded: false)
        guard case .none = again.delivery else {
            Issue.record("a transfer delivered twice")
            return
        }
        #expect(again.start.isEmpty)
        // A forgotten operation is not brought back by a late cancel or finish.
        scheduler.deliveryFinished(running.operation)
        scheduler.deliveryFinished(running.operation)
        #expect(names(scheduler.cancel(subscriber: running.id, of: running.operation)).names == [])
        #expect(!scheduler.contains(running.operation))
        #expect(scheduler.currentDownloadCount == 1)
    }

    @Test func aLongQueueOfRefusedRequestsDrainsOneStartPerEndedTransfer() throws {
        // The downloader's completion loop relies on this: each ended transfer hands back at
        // most the one operation that took its slot, never a nested chain.
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 1, lifo: false)
        #expect(scheduler.setSuspended(true).isEmpty)
        for index in 0..<30_000 { _ = try subscribe(&scheduler, "\(index)") }
        var pending = scheduler.setSuspended(false)
        var ended = 0
        var mostStarted = 0
        while let operation = pending.popLast() {
            let action = scheduler.transferEnded(operation, succeeded: false)
            _ = delivered(action.delivery)
            scheduler.deliveryFinished(operation)
            mostStarted = max(mostStarted, action.start.count)
            pending += action.start
            ended += 1
        }
        #expect(ended == 30_000)
        #expect(mostStarted == 1)
        #expect(scheduler.currentDownloadCount == 0)
    }

    @Test func progressAndPartialImagesGoOnlyToCallersThatAskedForThem() throws {
        var scheduler = DownloadScheduler(maxConcurrentDownloads: 6, lifo: false)
        let key = try key("cat.png")
        guard case .wait(let quiet, _) = scheduler.subscribe(subscriber("quiet"), key: key, options: options()) else {
            Issue.record("subscribe was rejected")
            return
        }
        #expect(scheduler.progressSubscribers(of: quiet.operation).isEmpty)
        #expect(!scheduler.wantsPartialImages(quiet.operation))
        _ = scheduler.subscribe(subscriber("watching", image: true, progressive: true, progress: true), key: key, options: options())
        #expect(names(scheduler.progressSubscribers(of: quiet.operation)) == ["watching"])
        #expect(scheduler.wantsPartialImages(quiet.operation))
    }

    /// A caller that left while a progress report was under way (its handler perhaps in the
    /// report's snapshot) gets its completion when the report ends, never before one of its
    /// progress calls; a caller without a handler, or with no report under way, at once.
    @Test func aCompletionDuringAProgressReportWaitsForItsEnd() throws {
        let operation = DownloadOperation(key: try key("a"), requestOptions: options())
        operation.beginProgressReport()
        operation.complete(subscriber("watching", progress: true), with: .failure(.cancelled))
        operation.complete(subscriber("quiet"), with: .failure(.cancelled))
        #expect(ledger.take() == ["quiet"])
        operation.beginProgressReport()   // a nested report: the end of the outer one decides
        operation.endProgressReport()
        #expect(ledger.take() == [])
        operation.endProgressReport()
        #expect(ledger.take() == ["watching"])
        operation.complete(subscriber("later", progress: true), with: .failure(.cancelled))
        #expect(ledger.take() == ["later"])
    }
}
