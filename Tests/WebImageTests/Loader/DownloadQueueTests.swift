import Foundation
import Testing
@testable import WebImage

/// The order in which waiting downloads start, and what removing and raising do to it.
@Suite struct DownloadQueueTests {
    private func operations(_ count: Int) throws -> [DownloadOperation] {
        try (0..<count).map { index in
            let url = try #require(URL(string: "http://127.0.0.1/\(index).png"))
            return DownloadOperation(key: .init(url: url, allowsInvalidCertificates: false), requestOptions: DownloadRequestOptions())
        }
    }

    private func drain(_ queue: inout DownloadQueue, lifo: Bool) -> [String] {
        var order: [String] = []
        while let next = queue.takeNext(lifo: lifo) { order.append(next.url.lastPathComponent) }
        return order
    }

    @Test func fifoTakesTheOldestOfTheHighestPriorityFirst() throws {
        let ops = try operations(5)
        var queue = DownloadQueue()
        let priorities: [DownloadPriority] = [.normal, .low, .high, .normal, .high]
        for (sequence, (operation, priority)) in zip(ops, priorities).enumerated() {
            queue.append(operation, priority: priority, sequence: sequence)
        }
        #expect(queue.count == 5)
        let order = drain(&queue, lifo: false)
        #expect(order == ["2.png", "4.png", "0.png", "3.png", "1.png"])
        #expect(queue.count == 0)
        let none = queue.takeNext(lifo: false)
        #expect(none == nil)
    }

    @Test func lifoTakesTheNewestOfTheHighestPriorityFirst() throws {
        let ops = try operations(5)
        var queue = DownloadQueue()
        let priorities: [DownloadPriority] = [.normal, .low, .high, .normal, .high]
        for (sequence, (operation, priority)) in zip(ops, priorities).enumerated() {
            queue.append(operation, priority: priority, sequence: sequence)
        }
        let order = drain(&queue, lifo: true)
        #expect(order == ["4.png", "2.png", "3.png", "0.png", "1.png"])
    }

    @Test func removedDownloadsAreSkippedAndCountedOut() throws {
        let ops = try operations(4)
        var queue = DownloadQueue()
        for (sequence, operation) in ops.enumerated() { queue.append(operation, priority: .normal, sequence: sequence) }
        let removed = queue.remove(ops[1])
        let removedAgain = queue.remove(ops[1])
        #expect(removed && !removedAgain)
        #expect(!queue.contains(ops[1]))
        #expect(queue.count == 3)
        let order = drain(&queue, lifo: false)
        #expect(order == ["0.png", "2.png", "3.png"])
    }

    @Test func raisingKeepsArrivalOrderWithinTheNewPriority() throws {
        let ops = try operations(4)
        var queue = DownloadQueue()
        queue.append(ops[0], priority: .high, sequence: 0)
        queue.append(ops[1], priority: .low, sequence: 1)
        queue.append(ops[2], priority: .high, sequence: 2)
        queue.append(ops[3], priority: .normal, sequence: 3)
        queue.raise(ops[1], to: .high)
        queue.raise(ops[3], to: .low)
        #expect(queue.count == 4)
        let order = drain(&queue, lifo: false)
        #expect(order == ["0.png", "1.png", "2.png", "3.png"])
    }

    @Test func removeAllReturnsOnlyTheLiveDownloads() throws {
        let ops = try operations(3)
        var queue = DownloadQueue()
        for (sequence, operation) in ops.enumerated() { queue.append(operation, priority: .low, sequence: sequence) }
        queue.raise(ops[0], to: .high)
        _ = queue.remove(ops[2])
        let waiting = queue.removeAll().map { $0.url.lastPathComponent }
        #expect(waiting.sorted() == ["0.png", "1.png"])
        #expect(queue.count == 0)
        let none = queue.takeNext(lifo: false)
        #expect(none == nil)
    }

    @Test func cancellingMostOfALongLifoQueueReleasesTheCancelledOperations() throws {
        var queue = DownloadQueue()
        weak var firstCancelled: DownloadOperation?
        var kept: [DownloadOperation] = []
        do {
            let ops = try operations(5000)
            for (sequence, operation) in ops.enumerated() { queue.append(operation, priority: .normal, sequence: sequence) }
            for operation in ops.dropLast(10) { _ = queue.remove(operation) }
            firstCancelled = ops[0]
            kept = Array(ops.suffix(10))
        }
        // The stale entries were dropped, so nothing holds the cancelled operations.
        #expect(firstCancelled == nil)
        #expect(queue.count == 10)
        let order = drain(&queue, lifo: true)
        #expect(order == kept.reversed().map { $0.url.lastPathComponent })
    }
}
