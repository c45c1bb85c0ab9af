import Foundation

extension Prefetcher {
    /// Everything the prefetcher tracks, behind its one lock: the lists, the shared FIFO
    /// queue of loads waiting for a slot, and the loads holding a slot.
    struct State {
        var maxConcurrent: Int
        var defaultOptions: ImageOptions = .lowPriority
        var defaultContext = ImageContext()
        var nextListID: UInt64 = 0
        var lists: [UInt64: PrefetchList] = [:]
        /// Loads holding a slot, with their operation once the manager returned it.
        private var running: [PrefetchLoad: ImageLoadOperation?] = [:]
        private var queue: [PrefetchLoad] = []
        private var queueHead = 0
        /// Whether a thread is in ``Prefetcher/startQueuedLoads()``'s loop, and whether a
        /// slot freed meanwhile (see ``beginStarting()``).
        private var isStarting = false
        private var startAgain = false

        init(maxConcurrent: Int) {
            self.maxConcurrent = maxConcurrent
        }

        mutating func enqueue(listID: UInt64, count: Int) {
            queue.reserveCapacity(queue.count + count)
            for index in 0..<count { queue.append(PrefetchLoad(listID: listID, index: index)) }
        }

        mutating func clearQueue() {
            queue.removeAll()
            queueHead = 0
        }

        /// `true` when the caller is to run the start loop; `false` when another call (on
        /// this thread, from inside a synchronous completion, or on another) runs it, which
        /// is then told to go round once more.
        mutating func beginStarting() -> Bool {
            guard !isStarting else {
                startAgain = true
                return false
            }
            isStarting = true
            return true
        }

        /// `true` when slots were freed while the loop ran, so it must go round again.
        mutating func endStarting() -> Bool {
            if startAgain {
                startAgain = false
                return true
            }
            isStarting = false
            return false
        }

        /// A load to start outside the lock.
        struct Start {
            let load: PrefetchLoad
            let url: URL
            let options: ImageOptions
            let context: ImageContext
        }

        /// Takes queued loads of live lists into free slots, oldest first.
        mutating func takeStartableLoads() -> [Start] {
            var starts: [Start] = []
            while running.count < maxConcurrent, queueHead < queue.count {
                let load = queue[queueHead]
                queueHead += 1
                guard let list = lists[load.listID], !list.isCompleted else { continue }
                running[load] = .some(nil)
                starts.append(Start(load: load, url: list.urls[load.index], options: list.options, context: list.context))
            }
            // Drop the consumed prefix now and then, so a long-lived prefetcher's queue stays small.
            if queueHead > 1024, queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            return starts
        }

        /// Keeps the operation of a started load; `true` means cancel it at once, because
        /// its list was cancelled while the manager was being called.
        mutating func attach(_ operation: ImageLoadOperation, to load: PrefetchLoad) -> Bool {
            guard running[load] != nil else { return false }  // it already finished
            guard let list = lists[load.listID], !list.isCancelled else { return true }
            running[load] = operation
            return false
        }

        /// Frees the load's slot and counts it for its list; `false` when the load was not
        /// running (a repeated completion).
        mutating func finish(_ load: PrefetchLoad, failed: Bool) -> Bool {
            guard running.removeValue(forKey: load) != nil else { return false }
            lists[load.listID]?.record(failed: failed)
            return true
        }

        /// Cancels a list and returns the operations of its running loads to cancel.
        mutating func cancelList(_ id: UInt64) -> [ImageLoadOperation] {
            guard lists[id] != nil else { return [] }
            lists[id]?.cancel()
            return running.compactMap { load, operation in load.listID == id ? operation : nil }
        }

        /// The list's next callback, forgetting the list once its completion went out.
        mutating func nextEvent(listID id: UInt64) -> PrefetchEvent? {
            let event = lists[id]?.nextEvent()
            if lists[id]?.isDrained == true { lists[id] = nil }
            return event
        }
    }
}
