import Foundation
@testable import WebImage

/// Records one prefetch list's callbacks in order and lets a test await them.
final class PrefetchRecorder: Sendable {
    enum Event: Equatable, Sendable {
        case progress(Int, Int)
        case completion(Int, Int)
    }

    private let recorded = LockedValue<[Event]>([])
    private let stream: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Event.self)
    }

    var events: [Event] { recorded.withLock { $0 } }
    var completions: [Event] { events.filter { if case .completion = $0 { true } else { false } } }

    var progress: Prefetcher.ProgressHandler {
        { [self] finished, total in record(.progress(finished, total)) }
    }

    var completion: Prefetcher.CompletionHandler {
        { [self] finished, skipped in record(.completion(finished, skipped)) }
    }

    private func record(_ event: Event) {
        recorded.withLock { $0.append(event) }
        continuation.yield(event)
    }

    /// Waits for the first event that satisfies `match` (or gives up after `timeout`: long,
    /// as it returns at the event, and a starved machine's pool delayed lists of 5-ms
    /// loads past 10 s).
    func wait(timeout: Duration = .seconds(30).scaled, for match: @escaping @Sendable (Event) -> Bool) async -> Event? {
        await withTaskGroup(of: Event?.self) { group in
            group.addTask { [stream] in
                for await event in stream where match(event) { return event }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Waits for the completion.
    func completed(timeout: Duration = .seconds(30).scaled) async -> Event? {
        await wait(timeout: timeout) { if case .completion = $0 { true } else { false } }
    }
}
