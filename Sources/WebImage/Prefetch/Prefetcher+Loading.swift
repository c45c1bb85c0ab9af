import Foundation

/// Starting loads within the concurrency limit, recording their outcomes, and delivering
/// each list's callbacks in order without holding the lock.
extension Prefetcher {
    /// Starts queued loads while there are free slots. One loop at a time does it: a load
    /// that completes inside the manager call (a memory hit, a remembered failure) frees
    /// its slot by asking the running loop to go round again, so a list of 100,000 memory
    /// hits never becomes 100,000 nested calls on one stack.
    func startQueuedLoads() {
        guard state.withLock({ $0.beginStarting() }) else { return }
        repeat {
            let starts = state.withLock { $0.takeStartableLoads() }
            for start in starts {
                let operation = startLoad(start)
                let cancelNow = state.withLock { $0.attach(operation, to: start.load) }
                if cancelNow { operation.cancel() }
            }
        } while state.withLock({ $0.endStarting() })
    }

    /// Starts one load in the prefetcher's destination.
    private func startLoad(_ start: State.Start) -> ImageLoadOperation {
        switch destination {
        case .memoryCache:
            let completion: @Sendable (Result<ImageLoadResult, WebImageError>) -> Void = { [self] result in
                loadHandler?(start.url, result)
                loadFinished(start.load, failed: (try? result.get()) == nil)
            }
            guard let imageManager = manager as? ImageManager else {
                return manager.loadImage(with: start.url, options: start.options, context: start.context, progress: nil, completion: completion)
            }
            // Prepared here, so that the choice below sees the options processor's
            // `.refreshCached` and the processor runs once per load, as in the manager.
            let url: URL, options: ImageOptions, context: ImageContext
            do {
                (url, options, context) = try imageManager.prepared(start.url, options: start.options, context: start.context)
            } catch {
                ImageManager.delivering(completion, on: start.context.callbackQueue)(.failure(error))
                return ImageLoadOperation {}
            }
            guard options.contains(.refreshCached) else {
                return imageManager.loadPrepared(url, options: options, context: context, progress: nil, completion: completion)
            }
            // The callback form reports the cached image first and, when the refresh finds
            // the image unchanged, never says that the refresh is over: the slot would be
            // freed while the download still runs (more loads at once than the limit, and a
            // refresh no cancel reaches). The `async` form returns when the whole load is
            // over, refresh included, so the slot is held until then. (Another manager's
            // `async` form may return the first result; it keeps the callback form.)
            let task = Task {
                let result: Result<ImageLoadResult, WebImageError>
                do throws(WebImageError) {
                    result = .success(try await imageManager.loadPrepared(url, options: options, context: context, progress: nil))
                } catch {
                    result = .failure(error)
                }
                completion(result)
            }
            return ImageLoadOperation { task.cancel() }
        case .diskCache:
            return manager.loadOriginalData(with: start.url, options: start.options, context: start.context, progress: nil) { [self] result in
                dataLoadHandler?(start.url, result)
                loadFinished(start.load, failed: (try? result.get()) == nil)
            }
        }
    }

    private func loadFinished(_ load: PrefetchLoad, failed: Bool) {
        let counted = state.withLock { $0.finish(load, failed: failed) }
        // A completion for a cancelled list changes nothing.
        guard counted else { return }
        deliverEvents(listID: load.listID)
        startQueuedLoads()
    }

    /// Calls the list's pending callbacks in order. Only one thread delivers for a list at
    /// a time; callbacks queued meanwhile (even by a callback, e.g. one that cancels the
    /// list) are delivered by that thread after the current one returns, so no callback
    /// runs under the lock and none can overtake another.
    func deliverEvents(listID id: UInt64) {
        guard state.withLock({ $0.lists[id]?.beginDelivery() ?? false }) else { return }
        while let event = state.withLock({ $0.nextEvent(listID: id) }) {
            switch event {
            case .progress(let finished, let total, let handler):
                handler(finished, total)
            case .completion(let finished, let skipped, let handler):
                handler?(finished, skipped)
            }
        }
    }
}
