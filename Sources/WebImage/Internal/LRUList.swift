/// A keyed doubly linked list in least-recently-used order, for ``MemoryCache``.
///
/// The nodes live in one contiguous array and link to each other by index, so a hit is a
/// hash lookup plus a few integer writes: no allocation, no reference counting of nodes.
/// Freed slots are chained into a free list and reused. Not thread-safe: the owner keeps
/// it behind a lock. Inlinable, so that `MemoryCache<String, Image>` used from another
/// module is specialised there rather than run through generic witness tables.
@usableFromInline
struct LRUList<Key: Hashable, Value> {
    @usableFromInline
    struct Node {
        @usableFromInline var key: Key?
        @usableFromInline var value: Value?
        @usableFromInline var cost: Int
        @usableFromInline var previous: Int
        @usableFromInline var next: Int

        @inlinable
        init(key: Key?, value: Value?, cost: Int, previous: Int, next: Int) {
            self.key = key
            self.value = value
            self.cost = cost
            self.previous = previous
            self.next = next
        }
    }

    @inlinable static var none: Int { -1 }

    @usableFromInline var nodes: [Node] = []
    @usableFromInline var index: [Key: Int] = [:]
    /// Most recently used.
    @usableFromInline var head = LRUList.none
    /// Least recently used.
    @usableFromInline var tail = LRUList.none
    /// First free slot; free slots chain through `next`.
    @usableFromInline var freeHead = LRUList.none

    /// Sum of the costs of the entries.
    @usableFromInline var totalCost = 0

    @inlinable init() {}

    /// Number of entries.
    @inlinable var count: Int { index.count }

    /// The value for `key`, made the most recently used.
    @inlinable mutating func value(forKey key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// The value for `key`, leaving the order as it is.
    @inlinable func peek(_ key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        return nodes[slot].value
    }

    /// Whether `key` has an entry.
    @inlinable func contains(_ key: Key) -> Bool {
        index[key] != nil
    }

    /// Inserts or replaces the value for `key` as the most recently used; returns the
    /// value it replaced.
    @inlinable @discardableResult
    mutating func set(_ value: Value, forKey key: Key, cost: Int) -> Value? {
        if let slot = index[key] {
            let old = nodes[slot].value
            totalCost += cost - nodes[slot].cost
            nodes[slot].value = value
            nodes[slot].cost = cost
            moveToFront(slot)
            return old
        }
        let node = Node(key: key, value: value, cost: cost, previous: Self.none, next: head)
        let slot: Int
        if freeHead != Self.none {
            slot = freeHead
            freeHead = nodes[slot].next
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        if head != Self.none { nodes[head].previous = slot }
        head = slot
        if tail == Self.none { tail = slot }
        index[key] = slot
        totalCost += cost
        return nil
    }

    /// Removes the entry for `key`; returns its value.
    @inlinable @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        guard let slot = index.removeValue(forKey: key) else { return nil }
        return release(slot).value
    }

    /// Removes the least recently used entry; returns its key, value and cost.
    @inlinable mutating func removeLeastRecent() -> (key: Key, value: Value, cost: Int)? {
        guard tail != Self.none, let key = nodes[tail].key else { return nil }
        index.removeValue(forKey: key)
        let slot = tail
        let cost = nodes[slot].cost
        guard let value = release(slot).value else { return nil }
        return (key, value, cost)
    }

    /// Removes every entry and gives the storage back.
    @inlinable mutating func removeAll() {
        nodes = []
        index = [:]
        head = Self.none
        tail = Self.none
        freeHead = Self.none
        totalCost = 0
    }

    /// The keys from most to least recently used (for tests and diagnostics; O(n)).
    @usableFromInline var keysInRecencyOrder: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var slot = head
        while slot != Self.none {
            if let key = nodes[slot].key { keys.append(key) }
            slot = nodes[slot].next
        }
        return keys
    }

    @inlinable mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous
        let next = nodes[slot].next
        if previous != Self.none { nodes[previous].next = next } else { head = next }
        if next != Self.none { nodes[next].previous = previous } else { tail = previous }
    }

    @inlinable mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        nodes[slot].previous = Self.none
        nodes[slot].next = head
        if head != Self.none { nodes[head].previous = slot }
        head = slot
        if tail == Self.none { tail = slot }
    }

    /// Unlinks `slot`, empties it onto the free list and returns what it held.
    @inlinable mutating func release(_ slot: Int) -> (key: Key?, value: Value?) {
        unlink(slot)
        let key = nodes[slot].key
        let value = nodes[slot].value
        totalCost -= nodes[slot].cost
        nodes[slot] = Node(key: nil, value: nil, cost: 0, previous: Self.none, next: freeHead)
        freeHead = slot
        return (key, value)
    }
}
