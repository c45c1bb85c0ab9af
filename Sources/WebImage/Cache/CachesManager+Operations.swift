import Foundation

extension CachesManager {
    /// Queries the caches by ``policies``'s `query`. A serial query returns the first hit from
    /// the highest-priority cache down; a concurrent one the first hit to arrive (the other
    /// queries are cancelled); a miss everywhere is a miss.
    public func image(forKey key: String, options: ImageCacheOptions, context: ImageCacheContext) async throws -> ImageCacheQueryResult {
        let policy = policies.query
        let caches = targets(policy)
        guard policy == .concurrent, caches.count > 1 else {
            for cache in caches {
                let result = try await cache.image(forKey: key, options: options, context: context)
                if result.image != nil { return result }
            }
            guard !Task.isCancelled else { throw WebImageError.cancelled }
            return .miss
        }
        let hit = await withTaskGroup(of: ImageCacheQueryResult?.self) { group -> ImageCacheQueryResult? in
            for cache in caches {
                group.addTask { try? await cache.image(forKey: key, options: options, context: context) }
            }
            for await result in group {
                if let result, result.image != nil {
                    group.cancelAll()
                    return result
                }
            }
            return nil
        }
        guard !Task.isCancelled else { throw WebImageError.cancelled }
        return hit ?? .miss
    }

    /// Stores in the caches ``policies``'s `store` selects; serially or concurrently, every one is
    /// tried and the first error (if any) is thrown after all have run.
    public func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType, context: ImageCacheContext) async throws {
        let policy = policies.store
        let caches = targets(policy)
        var firstError: (any Error)?
        if policy == .concurrent {
            firstError = await withTaskGroup(of: (any Error)?.self) { group in
                for cache in caches {
                    group.addTask {
                        do {
                            try await cache.store(image, data: data, forKey: key, cacheType: cacheType, context: context)
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                var first: (any Error)?
                for await error in group where first == nil { first = error }
                return first
            }
        } else {
            for cache in caches {
                do {
                    try await cache.store(image, data: data, forKey: key, cacheType: cacheType, context: context)
                } catch {
                    if firstError == nil { firstError = error }
                }
            }
        }
        if let firstError { throw firstError }
    }

    /// Removes from the caches ``policies``'s `remove` selects.
    public func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        await forEach(policies.remove) { await $0.removeImage(forKey: key, cacheType: cacheType) }
    }

    /// Checks the caches by ``policies``'s `contains`: the first level found (serially from the
    /// highest priority, or the first answer to arrive when concurrent), else
    /// ``ImageCacheType/none``.
    public func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        let policy = policies.contains
        let caches = targets(policy)
        guard policy == .concurrent, caches.count > 1 else {
            for cache in caches {
                let found = await cache.containsImage(forKey: key, cacheType: cacheType)
                if found != .none { return found }
            }
            return .none
        }
        return await withTaskGroup(of: ImageCacheType.self) { group in
            for cache in caches {
                group.addTask { await cache.containsImage(forKey: key, cacheType: cacheType) }
            }
            for await found in group where found != .none {
                group.cancelAll()
                return found
            }
            return .none
        }
    }

    /// Clears the caches ``policies``'s `clear` selects.
    public func clear(_ cacheType: ImageCacheType) async {
        await forEach(policies.clear) { await $0.clear(cacheType) }
    }

    /// Runs `body` on the caches `policy` selects, one after another or all at once.
    private func forEach(_ policy: Policy, _ body: @escaping @Sendable (any ImageCaching) async -> Void) async {
        let caches = targets(policy)
        guard policy == .concurrent else {
            for cache in caches { await body(cache) }
            return
        }
        await withTaskGroup(of: Void.self) { group in
            for cache in caches { group.addTask { await body(cache) } }
        }
    }
}
