/// The downloads waiting for a slot: one list per priority, each in arrival order. The
/// next is taken from the highest priority, oldest first (FIFO) or newest first (LIFO).
///
/// Adding, taking and removing cost O(1) amortised — a removed entry is only forgotten in
/// the index and skipped when its list reaches it — so a queue of tens of thousands of URLs
/// (a prefetch list) costs no more per download than a short one. Not thread-safe: the
/// ``DownloadScheduler`` keeps it, under the downloader's lock.
struct DownloadQueue {
    private struct Entry {
        let operation: DownloadOperation
        let sequence: Int
    }

    /// Indexed by `DownloadPriority.rawValue`; each sorted by sequence from `heads[i]` on.
    private var lists: [[Entry]] = Array(repeating: [], count: DownloadPriority.allCases.count)
    /// Where each list's live part starts (entries before it were taken, FIFO).
    private var heads: [Int] = Array(repeating: 0, count: DownloadPriority.allCases.count)
    /// The queued operations and where their entry is; an entry not matching is stale.
    private var index: [ObjectIdentifier: (priority: DownloadPriority, sequence: Int)] = [:]

    /// How many downloads wait.
    var count: Int { index.count }

    /// Whether `operation` waits in the queue.
    func contains(_ operation: DownloadOperation) -> Bool {
        index[ObjectIdentifier(operation)] != nil
    }

    /// Queues `operation`; `sequence` must grow with every call (arrival order).
    mutating func append(_ operation: DownloadOperation, priority: DownloadPriority, sequence: Int) {
        index[ObjectIdentifier(operation)] = (priority, sequence)
        lists[priority.rawValue].append(Entry(operation: operation, sequence: sequence))
    }

    /// Moves a queued `operation` up to `priority` (SDWebImage raises a waiting download
    /// when a more urgent caller joins it), keeping its place in arrival order there.
    mutating func raise(_ operation: DownloadOperation, to priority: DownloadPriority) {
        let id = ObjectIdentifier(operation)
        guard let current = index[id], current.priority < priority else { return }
        index[id] = (priority, current.sequence)
        let level = priority.rawValue
        var low = heads[level]
        var high = lists[level].count
        while low < high {
            let middle = (low + high) / 2
            if lists[level][middle].sequence < current.sequence { low = middle + 1 } else { high = middle }
        }
        lists[level].insert(Entry(operation: operation, sequence: current.sequence), at: low)
    }

    /// Takes `operation` out of the queue; `false` when it was not queued.
    mutating func remove(_ operation: DownloadOperation) -> Bool {
        guard index.removeValue(forKey: ObjectIdentifier(operation)) != nil else { return false }
        // Stale entries hold their operations; when they outnumber the live ones (callers
        // cancelling much of a long queue that never drains, as LIFO scrolling does), the
        // lists are rebuilt without them.
        let entries = lists.indices.reduce(0) { $0 + lists[$1].count - heads[$1] }
        if entries > 1024, entries > 2 * index.count { dropStaleEntries() }
        return true
    }

    /// Takes the download to start next, or `nil` when none waits.
    mutating func takeNext(lifo: Bool) -> DownloadOperation? {
        // Highest priority first; `lists` has one list per priority, indexed by raw value
        // (a range, not an array of the levels: this runs for every download).
        for level in lists.indices.reversed() {
            while heads[level] < lists[level].count {
                let entry = lifo ? lists[level].removeLast() : lists[level][heads[level]]
                if !lifo { heads[level] += 1 }
                let id = ObjectIdentifier(entry.operation)
                guard let live = index[id], live.priority.rawValue == level, live.sequence == entry.sequence else { continue }
                index[id] = nil
                compact(level)
                return entry.operation
            }
            compact(level)
        }
        return nil
    }

    /// Empties the queue; returns the operations that waited, in no particular order.
    mutating func removeAll() -> [DownloadOperation] {
        var waiting: [DownloadOperation] = []
        for level in lists.indices {
            for entry in lists[level][heads[level]...] {
                let id = ObjectIdentifier(entry.operation)
                if let live = index[id], live.priority.rawValue == level, live.sequence == entry.sequence { waiting.append(entry.operation) }
            }
        }
        self = DownloadQueue()
        return waiting
    }

    private mutating func dropStaleEntries() {
        for level in lists.indices {
            lists[level] = lists[level][heads[level]...].filter { entry in
                guard let live = index[ObjectIdentifier(entry.operation)] else { return false }
                return live.priority.rawValue == level && live.sequence == entry.sequence
            }
            heads[level] = 0
        }
    }

    /// Drops a list's taken prefix once it is most of the list, so FIFO memory stays
    /// proportional to what waits.
    private mutating func compact(_ level: Int) {
        if heads[level] == lists[level].count {
            lists[level].removeAll(keepingCapacity: true)
            heads[level] = 0
        } else if heads[level] > 1024, heads[level] * 2 > lists[level].count {
            lists[level].removeFirst(heads[level])
            heads[level] = 0
        }
    }
}
