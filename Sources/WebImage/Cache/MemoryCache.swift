/// An in-memory key-value cache with least-recently-used eviction under a total-cost limit
/// and a count limit: the first level of ``ImageCache``.
///
/// Every operation is synchronous and O(1): a hit is one lock, one hash lookup and a few
/// index writes, with no allocation. When an insertion (or a lowered limit) takes the cache
/// over a limit, the least recently used entries are evicted at once; an entry whose cost
/// alone exceeds the cost limit is not kept. A limit of 0 means no limit.
///
/// With ``usesWeakTable`` on (SDWebImage's `shouldUseWeakMemoryCache`), the cache also keeps
/// a weak reference to every class-typed value it was given, so a value evicted for space
/// but still alive elsewhere (on screen, in a response being written) is found again and
/// re-inserted instead of being decoded twice. Value types cannot be referenced weakly and
/// are not found after eviction.
///
/// Thread-safe: every method may be called from any thread or task. Evicted values are
/// released after the lock is dropped, so freeing a large image never blocks other callers.
///
/// ```swift
/// let cache = MemoryCache<String, Image>(totalCostLimit: 256 << 20)
/// cache.setValue(image, forKey: url.absoluteString, cost: image.memoryCost)
/// let hit = cache.value(forKey: url.absoluteString)
/// ```
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    // The hot paths are inlinable so a client module specialises them for its key and
    // value types; unspecialised generic code made a hit several times slower.
    @usableFromInline
    struct State {
        @usableFromInline var list = LRUList<Key, Value>()
        @usableFromInline var totalCostLimit: Int
        @usableFromInline var countLimit: Int
        @usableFromInline var weakTable: [Key: WeakEntry]?
        /// The weak-table size that triggers the next sweep of dead references.
        @usableFromInline var weakSweepThreshold = 64

        @inlinable
        init(totalCostLimit: Int, countLimit: Int, weakTable: [Key: WeakEntry]?) {
            self.totalCostLimit = totalCostLimit
            self.countLimit = countLimit
            self.weakTable = weakTable
        }
    }

    /// A weak reference kept beside the strong list; `cost` is what re-insertion charges.
    @usableFromInline
    final class WeakEntry {
        @usableFromInline weak var object: AnyObject?
        @usableFromInline let cost: Int

        @inlinable
        init(object: AnyObject, cost: Int) {
            self.object = object
            self.cost = cost
        }
    }

    @usableFromInline let state: LockedValue<State>
    @usableFromInline let valueIsClass: Bool

    /// Creates a cache. `totalCostLimit` and `countLimit` default to 0 (no limit);
    /// `usesWeakTable` defaults to `false`.
    public init(totalCostLimit: Int = 0, countLimit: Int = 0, usesWeakTable: Bool = false) {
        valueIsClass = Value.self is AnyObject.Type
        state = LockedValue(State(
            totalCostLimit: max(0, totalCostLimit),
            countLimit: max(0, countLimit),
            weakTable: usesWeakTable ? [:] : nil
        ))
    }

    /// The most total cost the cache holds before it evicts; 0 means no limit. Lowering it
    /// evicts at once.
    public var totalCostLimit: Int {
        get { state.withLock { $0.totalCostLimit } }
        set { changeLimit(\.totalCostLimit, to: newValue) }
    }

    /// The most entries the cache holds before it evicts; 0 means no limit. Lowering it
    /// evicts at once.
    public var countLimit: Int {
        get { state.withLock { $0.countLimit } }
        set { changeLimit(\.countLimit, to: newValue) }
    }

    /// Whether evicted values still referenced elsewhere are found again. Turning it off
    /// drops the weak table.
    public var usesWeakTable: Bool {
        get { state.withLock { $0.weakTable != nil } }
        set {
            state.withLock { state in
                if newValue, state.weakTable == nil { state.weakTable = [:] }
                if !newValue { state.weakTable = nil }
            }
        }
    }

    /// Sets one limit (never below 0) and evicts what no longer fits; the evicted values
    /// are released after the lock, as every eviction's are.
    private func changeLimit(_ limit: WritableKeyPath<State, Int> & Sendable, to newValue: Int) {
        let evicted = state.withLock { state in
            state[keyPath: limit] = max(0, newValue)
            return Self.trim(&state)
        }
        _ = evicted
    }

    /// The sum of the costs of the entries held strongly.
    public var totalCost: Int { state.withLock { $0.list.totalCost } }

    /// The number of entries held strongly.
    public var count: Int { state.withLock { $0.list.count } }

    /// The value for `key`, which becomes the most recently used; `nil` on a miss.
    @inlinable
    public func value(forKey key: Key) -> Value? {
        let (hit, evicted) = state.withLock { state -> (Value?, [Value]) in
            if let value = state.list.value(forKey: key) { return (value, []) }
            guard state.weakTable != nil else { return (nil, []) }
            return Self.revive(key, in: &state)
        }
        _ = evicted
        return hit
    }

    /// The value for `key` (reading makes it the most recently used); assigning `nil` removes it.
    /// Assigning a value charges a cost of 0; use ``setValue(_:forKey:cost:)`` to charge one.
    public subscript(key: Key) -> Value? {
        get { value(forKey: key) }
        set {
            if let newValue { setValue(newValue, forKey: key, cost: 0) } else { removeValue(forKey: key) }
        }
    }

    /// Whether `key` has an entry, without changing the recency order.
    @inlinable
    public func containsValue(forKey key: Key) -> Bool {
        state.withLock { state in
            if state.list.contains(key) { return true }
            return state.weakTable?[key]?.object != nil
        }
    }

    /// Stores `value` for `key` as the most recently used entry and evicts down to the
    /// limits. A value whose `cost` alone exceeds ``totalCostLimit`` is not kept (and any
    /// older value for `key` is removed).
    @inlinable
    public func setValue(_ value: Value, forKey key: Key, cost: Int = 0) {
        let cost = max(0, cost)
        // Replaced and evicted values are returned out of the lock and released here.
        let released = state.withLock { state -> (Value?, [Value]) in
            if state.weakTable != nil, valueIsClass {
                state.weakTable?[key] = WeakEntry(object: value as AnyObject, cost: cost)
                Self.sweepWeakTableIfLarge(&state)
            }
            if state.totalCostLimit > 0, cost > state.totalCostLimit {
                return (state.list.remove(key), [])
            }
            let replaced = state.list.set(value, forKey: key, cost: cost)
            return (replaced, Self.trim(&state))
        }
        _ = released
    }

    /// Removes the entry for `key`, strong and weak; returns the value it held.
    @inlinable @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        state.withLock { state in
            let removed = state.list.remove(key)
            let weak = state.weakTable?.removeValue(forKey: key)
            return removed ?? (weak?.object as? Value)
        }
    }

    /// Removes every entry, strong and weak.
    public func removeAll() {
        let released = state.withLock { state -> LRUList<Key, Value> in
            let old = state.list
            state.list = LRUList()
            if state.weakTable != nil { state.weakTable = [:] }
            return old
        }
        _ = released
    }

    /// Evicts least recently used entries until the total cost is at most `cost`,
    /// whatever the limit (the answer to memory pressure). Weak references are kept.
    public func trim(toCost cost: Int) {
        let evicted = state.withLock { state -> [Value] in
            var evicted: [Value] = []
            while state.list.totalCost > max(0, cost), let entry = state.list.removeLeastRecent() {
                evicted.append(entry.value)
            }
            return evicted
        }
        _ = evicted
    }

    /// The keys from most to least recently used. O(n); for diagnostics and tests.
    public var keysInRecencyOrder: [Key] { state.withLock { $0.list.keysInRecencyOrder } }

    /// Evicts until both limits hold; returns the evicted values so the caller releases
    /// them after unlocking.
    @inlinable static func trim(_ state: inout State) -> [Value] {
        var evicted: [Value] = []
        while (state.totalCostLimit > 0 && state.list.totalCost > state.totalCostLimit)
            || (state.countLimit > 0 && state.list.count > state.countLimit),
            let entry = state.list.removeLeastRecent() {
            evicted.append(entry.value)
        }
        return evicted
    }

    /// Re-inserts a value that was evicted but is still alive elsewhere; returns it and
    /// what the re-insertion evicted.
    @inlinable static func revive(_ key: Key, in state: inout State) -> (Value?, [Value]) {
        guard let entry = state.weakTable?[key] else { return (nil, []) }
        guard let object = entry.object, let value = object as? Value else {
            state.weakTable?.removeValue(forKey: key)
            return (nil, [])
        }
        guard state.totalCostLimit == 0 || entry.cost <= state.totalCostLimit else { return (value, []) }
        state.list.set(value, forKey: key, cost: entry.cost)
        return (value, trim(&state))
    }

    /// Drops dead weak references once the table has doubled since the last sweep, so it
    /// stays proportional to what is alive at amortised O(1) per insertion.
    @inlinable static func sweepWeakTableIfLarge(_ state: inout State) {
        guard let table = state.weakTable, table.count > state.weakSweepThreshold else { return }
        let alive = table.filter { $0.value.object != nil }
        state.weakTable = alive
        state.weakSweepThreshold = max(64, 2 * alive.count)
    }
}
