import Foundation

/// Several caches behind one ``ImageCaching`` (SDWebImage's `SDImageCachesManager`): for
/// example a small fast cache in front of a large shared one.
///
/// The cache added last has the highest priority. Each kind of operation follows its own
/// ``Policy``; the defaults are SDWebImage's: query serially (highest first, stop at the
/// first hit), store to the highest only, remove from all concurrently, check containment
/// serially, clear all concurrently.
///
/// Thread-safe; the list and the policies may change while operations run (each operation
/// uses the list as it was when it started).
///
/// ```swift
/// let manager = CachesManager(caches: [ImageCache(namespace: "big"), ImageCache(namespace: "hot")])
/// manager.storePolicy = .concurrent
/// let result = try await manager.image(forKey: key, options: [], context: ImageCacheContext())
/// ```
public final class CachesManager: ImageCaching {
    /// How an operation is spread over the caches (SDWebImage's
    /// `SDImageCachesManagerOperationPolicy`).
    public enum Policy: String, Sendable, CaseIterable {
        /// Only the cache added last.
        case highestOnly
        /// Only the cache added first.
        case lowestOnly
        /// All caches at once; a query or containment check returns the first hit to
        /// arrive.
        case concurrent
        /// One cache after another, highest priority first; a query or containment check
        /// stops at the first hit.
        case serial
    }

    private struct State {
        var caches: [any ImageCaching]
        var queryPolicy = Policy.serial
        var storePolicy = Policy.highestOnly
        var removePolicy = Policy.concurrent
        var containsPolicy = Policy.serial
        var clearPolicy = Policy.concurrent
    }

    /// The process-wide manager, holding ``ImageCache/shared``.
    public static let shared = CachesManager(caches: [ImageCache.shared])

    private let state: LockedValue<State>

    /// Creates a manager over `caches`, the last of which has the highest priority.
    public init(caches: [any ImageCaching] = []) {
        state = LockedValue(State(caches: caches))
    }

    /// The caches, lowest priority first.
    public var caches: [any ImageCaching] {
        get { state.withLock { $0.caches } }
        set { state.withLock { $0.caches = newValue } }
    }

    /// Adds `cache` with the highest priority.
    public func addCache(_ cache: any ImageCaching) {
        state.withLock { $0.caches.append(cache) }
    }

    /// Removes every cache for which `shouldRemove` returns `true`.
    public func removeCaches(where shouldRemove: (any ImageCaching) -> Bool) {
        state.withLock { $0.caches.removeAll(where: shouldRemove) }
    }

    /// Policy for queries. Default ``Policy/serial``.
    public var queryPolicy: Policy {
        get { state.withLock { $0.queryPolicy } }
        set { state.withLock { $0.queryPolicy = newValue } }
    }

    /// Policy for stores. Default ``Policy/highestOnly``.
    public var storePolicy: Policy {
        get { state.withLock { $0.storePolicy } }
        set { state.withLock { $0.storePolicy = newValue } }
    }

    /// Policy for removals. Default ``Policy/concurrent``.
    public var removePolicy: Policy {
        get { state.withLock { $0.removePolicy } }
        set { state.withLock { $0.removePolicy = newValue } }
    }

    /// Policy for containment checks. Default ``Policy/serial``.
    public var containsPolicy: Policy {
        get { state.withLock { $0.containsPolicy } }
        set { state.withLock { $0.containsPolicy = newValue } }
    }

    /// Policy for clearing. Default ``Policy/concurrent``.
    public var clearPolicy: Policy {
        get { state.withLock { $0.clearPolicy } }
        set { state.withLock { $0.clearPolicy = newValue } }
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
