import Foundation
import Testing
@testable import WebImage

/// A callback load's progress handler is never called after, or during, its completion,
/// even when the load is cancelled from another thread while a report is running: the
/// manager's ``ProgressGate``. Before it, a cancel completed the load at once on the
/// cancelling thread, beside the report still in the caller's progress handler.
@Suite struct ImageManagerProgressGateTests {
    /// A loader that reports progress once from a thread of its own, then waits to be
    /// cancelled; the report blocks for as long as the test's progress handler does.
    struct ReportingLoader: ImageLoader {
        func canLoad(_ url: URL) -> Bool { url.scheme == "gate" }

        func load(_ url: URL, options: DownloadRequestOptions, progress: LoadProgressHandler?) async throws(WebImageError) -> ImageLoaderOutput {
            if let progress {
                Thread { progress(LoadProgress(receivedSize: 1, expectedSize: 2, url: url)) }.start()
            }
            try? await Task.sleep(for: .seconds(30))
            throw .cancelled
        }
    }

    /// The order in which the handlers ran, and a latch the progress handler waits on.
    final class Record: Sendable {
        let events = LockedValue<[String]>([])
        let released = LockedValue(false)

        func add(_ event: String) { events.withLock { $0.append(event) } }
        var all: [String] { events.withLock { $0 } }

        /// Blocks the calling thread (the loader's own, never a pool's) until released.
        func waitForRelease() {
            while !released.withLock({ $0 }) { usleep(1_000) }
        }
    }

    @Test(arguments: ["image", "original data"])
    func aCancelDuringAReportCompletesAfterTheReport(form: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = ImageManager(cache: ImageCache(namespace: "gate", directory: directory.url), loader: ReportingLoader())
        let record = Record()
        // Whatever happens, the loader's thread is not left blocked in the report.
        defer { record.released.withLock { $0 = true } }
        let progress: LoadProgressHandler = { _ in
            record.add("progress began")
            record.waitForRelease()
            record.add("progress ended")
        }
        let url = URL(string: "gate://host/a.png")!
        let operation: ImageLoadOperation
        if form == "image" {
            operation = manager.loadImage(with: url, progress: progress) { result in
                record.add(result.isCancelled ? "completed cancelled" : "completed \(result)")
            }
        } else {
            operation = manager.loadOriginalData(with: url, progress: progress) { result in
                record.add((try? result.get()) == nil ? "completed cancelled" : "completed")
            }
        }
        try #require(await waitUntil { record.all == ["progress began"] })
        try #require(record.all == ["progress began"], "the report must be running when the load is cancelled")
        operation.cancel()
        #expect(record.all == ["progress began"], "no completion while the report runs")
        record.released.withLock { $0 = true }
        try #require(await waitUntil { record.all.count == 3 })
        #expect(record.all == ["progress began", "progress ended", "completed cancelled"])
        await manager.waitForBackgroundStores()
    }

    /// The gate on its own: a report after the close is dropped, and a handler that
    /// closes the gate itself (a progress handler that cancels its load) gets the
    /// completion as it returns, not inside it.
    @Test func aReportAfterTheCloseIsDroppedAndAReentrantCloseWaitsForTheReport() {
        let gate = ProgressGate()
        let record = Record()
        let url = URL(string: "gate://host/a.png")!
        let guarded = gate.guarding { _ in
            record.add("report")
            gate.close { record.add("completion") }
            record.add("report ended")
        }
        guarded?(LoadProgress(receivedSize: 1, expectedSize: 2, url: url))
        guarded?(LoadProgress(receivedSize: 2, expectedSize: 2, url: url))
        #expect(record.all == ["report", "report ended", "completion"])
        #expect(gate.guarding(nil) == nil)
    }
}

extension Result where Failure == WebImageError {
    /// Whether this is the cancellation failure.
    var isCancelled: Bool {
        if case .failure(.cancelled) = self { return true }
        return false
    }
}
