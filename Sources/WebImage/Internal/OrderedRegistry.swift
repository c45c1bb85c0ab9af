/// The ordered, thread-safe list behind ``CodersManager`` and ``LoadersManager``: entries
/// in the order they were added, searched from the last added to the first, so a user's
/// entry added later takes over from a built-in one (SDWebImage's rule for coders and
/// loaders alike).
///
/// Thread-safe: the list is read and changed under a lock, and ``first(where:)`` and
/// ``removeAll(where:)`` run their predicates on a snapshot outside the lock, so neither an
/// entry's work nor a caller's predicate runs under it (a predicate that asks a coder which
/// delegates to its manager would otherwise take the lock again, and deadlock).
///
/// ```swift
/// let registry = OrderedRegistry<any ImageCoder>([PNGCoder(), JPEGCoder()])
/// registry.add(MyCoder())
/// let coder = registry.first { $0.canDecode(data) }   // MyCoder is asked first
/// ```
final class OrderedRegistry<Entry: Sendable>: Sendable {
    private struct Storage {
        var entries: [Entry]
        /// Counts the changes, so that a removal decided on a snapshot applies only to the
        /// list it looked at.
        var version: UInt64 = 0

        mutating func change(_ body: (inout [Entry]) -> Void) {
            body(&entries)
            version &+= 1
        }
    }

    private let storage: LockedValue<Storage>

    /// Creates a registry holding `entries`, the last of which is searched first.
    init(_ entries: [Entry]) {
        storage = LockedValue(Storage(entries: entries))
    }

    /// The entries in the order they were added (the last is searched first).
    var entries: [Entry] {
        get { storage.withLock { $0.entries } }
        set { storage.withLock { $0.change { $0 = newValue } } }
    }

    /// Adds `entry`, to be searched before every entry already present.
    func add(_ entry: Entry) {
        storage.withLock { $0.change { $0.append(entry) } }
    }

    /// Removes every entry for which `shouldRemove` returns `true`. The predicate runs on a
    /// snapshot outside the lock; when the list changed meanwhile, it runs again on the new
    /// one, a few times at most: after that (other threads changing the list without
    /// pause, or a predicate that changes it itself) it runs under the lock, once.
    func removeAll(where shouldRemove: (Entry) -> Bool) {
        for _ in 0..<4 {
            let (snapshot, version) = storage.withLock { ($0.entries, $0.version) }
            let doomed = snapshot.indices.filter { shouldRemove(snapshot[$0]) }
            let removed = storage.withLock { storage in
                guard storage.version == version else { return false }
                storage.change { entries in
                    for index in doomed.reversed() { entries.remove(at: index) }
                }
                return true
            }
            if removed { return }
        }
        storage.withLock { $0.change { $0.removeAll(where: shouldRemove) } }
    }

    /// The most recently added entry that satisfies `predicate`, if any.
    func first(where predicate: (Entry) -> Bool) -> Entry? {
        entries.reversed().first(where: predicate)
    }
}
