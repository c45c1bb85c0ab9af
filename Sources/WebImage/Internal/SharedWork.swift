/// The bookkeeping of one unit of work shared by many subscribers: who waits for it, and
/// whether the subscriber who just left was the last one (the owner then cancels the work).
///
/// The downloader's scheduler keeps one per network request (subscribers are the callers
/// of one URL) and ``TaskCoalescer`` one per key (subscribers are the suspended callers),
/// so "join, leave, cancel when the last one leaves, hand the result to everyone" has
/// one implementation. What cancelling or finishing the work means stays with the owner:
/// this type only reports the decision (as Nuke's `AsyncTask` does for its stages).
///
/// A plain value with no lock, no callback and no I/O: the owner keeps it under its own
/// lock and acts on what each call returns outside it. Once ``close()``d (the work ended
/// and its result is being handed out) nobody may join.
///
/// ```swift
/// var work = SharedWork<String>()
/// work.join("first", id: 1)
/// if case .lastLeft = work.leave(id: 1) { /* cancel the work */ }
/// ```
struct SharedWork<Subscriber> {
    /// What ``leave(id:)`` found.
    enum Departure {
        /// No such subscriber: it left before, or already had its result.
        case absent
        /// The subscriber left; others still wait.
        case left(Subscriber)
        /// The subscriber left and nobody waits any more.
        case lastLeft(Subscriber)
    }

    /// The waiting subscribers by the id they joined with. A dictionary, not an array:
    /// leaving must cost O(1) with thousands of callers on one URL.
    private(set) var subscribers: [Int: Subscriber] = [:]
    /// Whether the work ended: ``join(_:id:)`` then refuses.
    private(set) var isClosed = false

    /// Whether nobody waits.
    var isEmpty: Bool { subscribers.isEmpty }

    /// Adds a subscriber; `false` (and nothing changes) once the work is closed, when the
    /// caller needs a new unit of work.
    @discardableResult
    mutating func join(_ subscriber: Subscriber, id: Int) -> Bool {
        guard !isClosed else { return false }
        subscribers[id] = subscriber
        return true
    }

    /// Removes one subscriber and says whether it was the last.
    mutating func leave(id: Int) -> Departure {
        guard let subscriber = subscribers.removeValue(forKey: id) else { return .absent }
        return subscribers.isEmpty ? .lastLeft(subscriber) : .left(subscriber)
    }

    /// Marks the work ended: later joins are refused, leaving still works.
    mutating func close() {
        isClosed = true
    }

    /// Removes and returns every subscriber, to hand them the result (or the error).
    mutating func takeAll() -> [(id: Int, subscriber: Subscriber)] {
        defer { subscribers.removeAll() }
        return subscribers.map { ($0.key, $0.value) }
    }
}
