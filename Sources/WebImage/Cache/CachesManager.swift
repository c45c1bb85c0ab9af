import Foundation

/// Several caches behind one ``ImageCaching`` (SDWebImage's `SDImageCachesManager`): for
/// example a small fast cache in front of a large shared one.
///
/// The cache added last has the highest priority. Each kind of operation follows its own
/// ``Policy``, set in ``policies``; the defaults are SDWebImage's: query serially (highest
/// first, stop at the first hit), store to the highest only, remove from all concurrently,
/// check containment serially, clear all concurrently.
///
/// Thread-safe; the list and the policies may change while operations run (each operation
/// uses the list as it was when it started).
///
/// ```swift
/// let manager = CachesManager(caches: [ImageCache(namespace: "big"), ImageCache(namespace: "hot")])
/// manager.policies.store = .concurrent
/// let result = try await manager.image(forKey: key, options: [], context: ImageCacheContext())
/// ```
public final class CachesManager: ImageCaching {
    /// The process-wide manager, holding ``ImageCache/shared``.
    public static let shared = CachesManager(caches: [ImageCache.shared])

    private let registry: OrderedRegistry<any ImageCaching>
    private let policiesValue = LockedValue(Policies())

    /// Creates a manager over `caches`, the last of which has the highest priority.
    public init(caches: [any ImageCaching] = []) {
        registry = OrderedRegistry(caches)
    }

    /// The caches, lowest priority first.
    public var caches: [any ImageCaching] {
        get { registry.entries }
        set { registry.entries = newValue }
    }

    /// Adds `cache` with the highest priority.
    public func addCache(_ cache: any ImageCaching) {
        registry.add(cache)
    }

    /// Removes every cache for which `shouldRemove` returns `true`. The predicate runs
    /// outside the manager's lock, so it may use the manager.
    public func removeCaches(where shouldRemove: (any ImageCaching) -> Bool) {
        registry.removeAll(where: shouldRemove)
    }

    /// Which caches each kind of operation addresses, and how; SDWebImage's defaults
    /// (see ``Policies``).
    ///
    /// Each operation reads the value once when it starts. Assigning a field
    /// (`manager.policies.store = .concurrent`) reads the whole value and writes it back,
    /// so set policies while configuring the manager, not from several threads at once.
    public var policies: Policies {
        get { policiesValue.withLock { $0 } }
        set { policiesValue.withLock { $0 = newValue } }
    }

    /// The caches `policy` addresses, highest priority first.
    func targets(_ policy: Policy) -> [any ImageCaching] {
        let caches = caches
        switch policy {
        case .highestOnly: return caches.last.map { [$0] } ?? []
        case .lowestOnly: return caches.first.map { [$0] } ?? []
        case .concurrent, .serial: return caches.reversed()
        }
    }
}
