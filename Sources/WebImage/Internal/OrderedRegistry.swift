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
        /// One number per entry, never reused, so that a removal decided on a snapshot
        /// finds the entries it looked at however the list changed meanwhile.
        var ids: [UInt64]
        var nextID: UInt64

        init(_ entries: [Entry]) {
            self.entries = entries
            ids = Array(0..<UInt64(entries.count))
            nextID = UInt64(entries.count)
        }

        mutating func replace(with entries: [Entry]) {
            self.entries = entries
            ids = Array(nextID..<nextID + UInt64(entries.count))
            nextID += UInt64(entries.count)
        }

        mutating func append(_ entry: Entry) {
            entries.append(entry)
            ids.append(nextID)
            nextID += 1
        }
    }

    private let storage: LockedValue<Storage>

    /// Creates a registry holding `entries`, the last of which is searched first.
    init(_ entries: [Entry]) {
        storage = LockedValue(Storage(entries))
    }

    /// The entries in the order they were added (the last is searched first).
    var entries: [Entry] {
        get { storage.withLock { $0.entries } }
        set { storage.withLock { $0.replace(with: newValue) } }
    }

    /// Adds `entry`, to be searched before every entry already present.
    func add(_ entry: Entry) {
        storage.withLock { $0.append(entry) }
    }

    /// Removes every entry for which `shouldRemove` returns `true`. The predicate runs once
    /// per entry, on a snapshot, outside the lock; the entries it chose are then removed
    /// if they are still there. An entry added meanwhile stays, as if added just after the
    /// removal: so a predicate may read or change the registry itself (it used to run
    /// under the lock when the list kept changing, and such a predicate then took the lock
    /// again and trapped).
    func removeAll(where shouldRemove: (Entry) -> Bool) {
        let (snapshot, ids) = storage.withLock { ($0.entries, $0.ids) }
        let doomed = Set(snapshot.indices.filter { shouldRemove(snapshot[$0]) }.map { ids[$0] })
        guard !doomed.isEmpty else { return }
        storage.withLock { storage in
            let kept = storage.ids.indices.filter { !doomed.contains(storage.ids[$0]) }
            storage.entries = kept.map { storage.entries[$0] }
            storage.ids = kept.map { storage.ids[$0] }
        }
    }

    /// The most recently added entry that satisfies `predicate`, if any.
    func first(where predicate: (Entry) -> Bool) -> Entry? {
        entries.reversed().first(where: predicate)
    }
}
