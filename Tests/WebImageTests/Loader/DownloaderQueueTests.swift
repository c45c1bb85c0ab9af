import Foundation
import Testing
@testable import WebImage

/// The downloader's queue: the concurrency limit, FIFO/LIFO, priorities, suspension,
/// cancelling everything and shutting down.
@Suite("Downloader queue", .timeLimit(.minutes(1)))
struct DownloaderQueueTests {
    let png: Data

    init() throws {
        png = try Corpus.data("TestImage.png")
    }

    private func routes(_ names: [String], delay: Duration) -> [String: LoopbackServer.Reply] {
        Dictionary(uniqueKeysWithValues: names.map { ("/\($0)", .delayed(delay, then: .ok(png, contentType: "image/png"))) })
    }

    /// Routes whose replies are held until `gate` opens (a byte every 20 ms meanwhile).
    private func gatedRoutes(_ names: [String], _ gate: ReplyGate) -> [String: LoopbackServer.Reply] {
        Dictionary(uniqueKeysWithValues: names.map {
            ("/\($0)", .gated(png, firstPart: 100, gate: gate, interval: .milliseconds(20), contentType: "image/png"))
        })
    }

    @Test func neverRunsMoreThanTheLimitAtOnce() async throws {
        let names = (0..<8).map { "\($0).png" }
        // The replies are held until two requests are open together, then a little longer
        // (time for a third to come, were the limit not kept): two are open at once, never
        // three, however slow the machine. (Replies held 100 ms each were a window that
        // the second request missed on a starved machine.) All eight are asked for here, in
        // one go: from a task each, the starved cooperative pool could start them late.
        let gate = ReplyGate()
        defer { gate.open() }
        try await LoopbackServer.with(gatedRoutes(names, gate)) { server in
            let config = LoaderTesting.config { $0.maxConcurrentDownloads = 2 }
            try await LoaderTesting.withDownloader(config) { downloader in
                let recorder = CompletionRecorder()
                for (index, name) in names.enumerated() {
                    downloader.downloadImage(with: server.url("/\(name)"), completion: recorder.completion(index))
                }
                try await server.waitForRequests(2)
                try await Task.sleep(for: .milliseconds(200))
                gate.open()
                let outcomes = await recorder.outcomes(names.count)
                #expect(outcomes.values.allSatisfy { (try? $0.get()) != nil })
            }
            #expect(server.maxOpenRequests == 2)
            #expect(server.requests.count == names.count)
        }
    }

    @Test func raisingTheLimitAtRunTimeStartsQueuedDownloads() async throws {
        let names = (0..<4).map { "\($0).png" }
        // The replies are held until all four requests are open: the three queued
        // downloads reach the server while the first is still open, however slow the
        // machine. (A reply held 1 s was a window a starved machine missed.)
        let gate = ReplyGate()
        defer { gate.open() }
        try await LoopbackServer.with(gatedRoutes(names, gate)) { server in
            let config = LoaderTesting.config { $0.maxConcurrentDownloads = 1 }
            try await LoaderTesting.withDownloader(config) { downloader in
                let recorder = CompletionRecorder()
                for (index, name) in names.enumerated() {
                    downloader.downloadImage(with: server.url("/\(name)"), completion: recorder.completion(index))
                }
                #expect(downloader.currentDownloadCount == 4)
                downloader.maxConcurrentDownloads = 4
                #expect(downloader.maxConcurrentDownloads == 4)
                try await server.waitForRequests(4)
                gate.open()
                let outcomes = await recorder.outcomes(4)
                #expect(outcomes.values.allSatisfy { (try? $0.get()) != nil })
            }
            #expect(server.maxOpenRequests == 4)
        }
    }

    /// With one slot, the first download starts at once; then LIFO takes the newest.
    @Test func lifoWithOneSlotRunsTheNewestQueuedFirst() async throws {
        let names = ["a", "b", "c", "d"]
        try await LoopbackServer.with(routes(names, delay: .milliseconds(50))) { server in
            let config = LoaderTesting.config {
                $0.maxConcurrentDownloads = 1
                $0.executionOrder = .lifo
            }
            try await LoaderTesting.withDownloader(config) { downloader in
                let recorder = CompletionRecorder()
                for (index, name) in names.enumerated() {
                    downloader.downloadImage(with: server.url("/\(name)"), completion: recorder.completion(index))
                    // The first holds the slot; the rest queue behind the suspension, so the
                    // order does not hang on the first reply outlasting the enqueueing.
                    if index == 0 { downloader.isSuspended = true }
                }
                downloader.isSuspended = false
                _ = await recorder.outcomes(4)
            }
            #expect(server.requests.map(\.path) == ["/a", "/d", "/c", "/b"])
        }
    }

    @Test func fifoWithOneSlotRunsInArrivalOrder() async throws {
        let names = ["a", "b", "c", "d"]
        try await LoopbackServer.with(routes(names, delay: .milliseconds(50))) { server in
            let config = LoaderTesting.config { $0.maxConcurrentDownloads = 1 }
            try await LoaderTesting.withDownloader(config) { downloader in
                let recorder = CompletionRecorder()
                for (index, name) in names.enumerated() {
                    downloader.downloadImage(with: server.url("/\(name)"), completion: recorder.completion(index))
                    // The first holds the slot; the rest queue behind the suspension, so the
                    // order does not hang on the first reply outlasting the enqueueing.
                    if index == 0 { downloader.isSuspended = true }
                }
                downloader.isSuspended = false
                _ = await recorder.outcomes(4)
            }
            #expect(server.requests.map(\.path) == ["/a", "/b", "/c", "/d"])
        }
    }

    @Test func highPriorityOvertakesAndLowPriorityWaits() async throws {
        let names = ["first", "low", "normal", "high", "joined"]
        try await LoopbackServer.with(routes(names, delay: .milliseconds(50))) { server in
            let config = LoaderTesting.config { $0.maxConcurrentDownloads = 1 }
            try await LoaderTesting.withDownloader(config) { downloader in
                let recorder = CompletionRecorder()
                let plan: [(String, DownloadPriority)] = [
                    ("first", .normal), ("low", .low), ("normal", .normal), ("high", .high), ("joined", .low),
                ]
                for (index, (name, priority)) in plan.enumerated() {
                    var options = DownloadRequestOptions()
                    options.priority = priority
                    downloader.downloadImage(with: server.url("/\(name)"), options: options, completion: recorder.completion(index))
                    if index == 0 { downloader.isSuspended = true }
                }
                // A high-priority caller joining a queued low-priority download raises it.
                var urgent = DownloadRequestOptions()
                urgent.priority = .high
                downloader.downloadImage(with: server.url("/joined"), options: urgent, completion: recorder.completion(5))
                downloader.isSuspended = false
                _ = await recorder.outcomes(6)
            }
            #expect(server.requests.map(\.path) == ["/first", "/high", "/joined", "/normal", "/low"])
        }
    }

    @Test func suspendedQueueStartsNothingUntilResumed() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png)]) { server in
            try await LoaderTesting.withDownloader { downloader in
                downloader.isSuspended = true
                #expect(downloader.isSuspended)
                let recorder = CompletionRecorder()
                downloader.downloadImage(with: server.url("/a.png"), completion: recorder.completion(0))
                try await Task.sleep(for: .milliseconds(200))
                #expect(server.requests.isEmpty)
                #expect(downloader.currentDownloadCount == 1)
                downloader.isSuspended = false
                let outcomes = await recorder.outcomes(1)
                #expect((try? outcomes[0]?.get()) != nil)
                #expect(downloader.currentDownloadCount == 0)
            }
        }
    }

    @Test func cancelAllDownloadsEndsQueuedAndRunningLoads() async throws {
        let names = ["a", "b", "c"]
        // The replies and the time-out come after 30 s (scaled, like the bound): only the
        // cancellation can end the loads within 10 s, with room for a loaded machine.
        try await LoopbackServer.with(routes(names, delay: LoaderTesting.outlastingTimeout.scaled)) { server in
            let config = LoaderTesting.config(timeout: LoaderTesting.outlastingTimeout) { $0.maxConcurrentDownloads = 1 }
            try await LoaderTesting.withDownloader(config) { downloader in
                let recorder = CompletionRecorder()
                for (index, name) in names.enumerated() {
                    downloader.downloadImage(with: server.url("/\(name)"), completion: recorder.completion(index))
                }
                try await server.waitForRequests(1)
                let start = ContinuousClock.now
                downloader.cancelAllDownloads()
                let outcomes = await recorder.outcomes(3)
                #expect(outcomes.values.allSatisfy { (try? $0.get()) == nil })
                #expect(throws: WebImageError.cancelled) { try outcomes[2]?.get() }
                #expect(ContinuousClock.now - start < LoaderTesting.endBound.scaled)
                #expect(recorder.callCounts.values.allSatisfy { $0 == 1 })
            }
            #expect(server.requests.map(\.path) == ["/a"])
        }
    }

    @Test func aShutDownDownloaderRefusesNewDownloads() async throws {
        let downloader = Downloader(config: LoaderTesting.config())
        try await downloader.shutdown()
        try await downloader.shutdown()
        let error = await LoaderTesting.error(loading: URL(string: "http://127.0.0.1:9/a.png"), with: downloader)
        #expect(error == .invalidDownloadOperation)
    }
}
