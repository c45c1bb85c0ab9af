/// The ordered, thread-safe list behind ``CodersManager`` and ``LoadersManager``: entries
/// in the order they were added, searched from the last added to the first, so a user's
/// entry added later takes over from a built-in one (SDWebImage's rule for coders and
/// loaders alike).
///
/// Thread-safe: the list is read and changed under a lock, and ``first(where:)`` runs its
/// predicate on a snapshot outside the lock, so an entry's work never runs under it.
///
/// ```swift
/// let registry = OrderedRegistry<any ImageCoder>([PNGCoder(), JPEGCoder()])
/// registry.add(MyCoder())
/// let coder = registry.first { $0.canDecode(data) }   // MyCoder is asked first
/// ```
final class OrderedRegistry<Entry: Sendable>: Sendable {
    private let storage: LockedValue<[Entry]>

    /// Creates a registry holding `entries`, the last of which is searched first.
    init(_ entries: [Entry]) {
        storage = LockedValue(entries)
    }

    /// The entries in the order they were added (the last is searched first).
    var entries: [Entry] {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// Adds `entry`, to be searched before every entry already present.
    func add(_ entry: Entry) {
        storage.withLock { $0.append(entry) }
    }

    /// Removes every entry for which `shouldRemove` returns `true`.
    func removeAll(where shouldRemove: (Entry) -> Bool) {
        storage.withLock { $0.removeAll(where: shouldRemove) }
    }

    /// The most recently added entry that satisfies `predicate`, if any.
    func first(where predicate: (Entry) -> Bool) -> Entry? {
        entries.reversed().first(where: predicate)
    }
}
