import Foundation
import Testing
@testable import WebImage

@Suite("CachesManager")
struct CachesManagerTests {
    /// A manager over two fresh caches, `low` added first and `high` last.
    private func makeManager() throws -> (CachesManager, low: ImageCache, high: ImageCache, cleanup: () -> Void) {
        let (low, lowDirectory) = try makeImageCache("low")
        let (high, highDirectory) = try makeImageCache("high")
        return (CachesManager(caches: [low, high]), low, high, { lowDirectory.remove(); highDirectory.remove() })
    }

    @Test func defaultPoliciesAreSDWebImages() {
        let manager = CachesManager()
        #expect(manager.policies.query == .serial)
        #expect(manager.policies.store == .highestOnly)
        #expect(manager.policies.remove == .concurrent)
        #expect(manager.policies.contains == .serial)
        #expect(manager.policies.clear == .concurrent)
        #expect(manager.policies == CachesManager.Policies())
    }

    @Test func policiesAreSetInOneAssignmentAndReadBackWhole() {
        let manager = CachesManager()
        let chosen = CachesManager.Policies(query: .concurrent, store: .serial, remove: .lowestOnly, contains: .highestOnly, clear: .serial)
        manager.policies = chosen
        #expect(manager.policies == chosen)
        manager.policies.store = .concurrent
        #expect(manager.policies.store == .concurrent)
        #expect(manager.policies.query == .concurrent, "setting one field keeps the others")
        #expect(manager.policies.remove == .lowestOnly)
    }

    @Test func serialQueryPrefersTheHighestPriorityCacheAndFallsBackToLowerOnes() async throws {
        let (manager, low, high, cleanup) = try makeManager()
        defer { cleanup() }
        let lowImage = makeImage()
        let highImage = makeImage()
        low.storeImageToMemory(lowImage, forKey: "both")
        high.storeImageToMemory(highImage, forKey: "both")
        low.storeImageToMemory(lowImage, forKey: "low-only")
        #expect(try await manager.image(forKey: "both", options: [], context: ImageCacheContext()).image === highImage)
        #expect(try await manager.image(forKey: "low-only", options: [], context: ImageCacheContext()).image === lowImage)
        #expect(try await manager.image(forKey: "nowhere", options: [], context: ImageCacheContext()).cacheType == .none)
    }

    @Test func concurrentQueryReturnsAHitFromAnyCache() async throws {
        let (manager, low, _, cleanup) = try makeManager()
        defer { cleanup() }
        manager.policies.query = .concurrent
        let image = makeImage()
        low.storeImageToMemory(image, forKey: "k")
        #expect(try await manager.image(forKey: "k", options: [], context: ImageCacheContext()).image === image)
        #expect(try await manager.image(forKey: "missing", options: [], context: ImageCacheContext()).image == nil)
    }

    @Test func onlyPoliciesAddressOneCache() async throws {
        let (manager, low, high, cleanup) = try makeManager()
        defer { cleanup() }
        let context = ImageCacheContext()
        try await manager.store(makeImage(), data: Data([1]), forKey: "highest", cacheType: .all, context: context)
        #expect(await high.containsImage(forKey: "highest") == .memory)
        #expect(await low.containsImage(forKey: "highest") == .none)
        manager.policies.store = .lowestOnly
        try await manager.store(makeImage(), data: Data([1]), forKey: "lowest", cacheType: .all, context: context)
        #expect(await low.containsImage(forKey: "lowest") == .memory)
        #expect(await high.containsImage(forKey: "lowest") == .none)
        manager.policies.query = .lowestOnly
        #expect(try await manager.image(forKey: "highest", options: [], context: context).image == nil)
        manager.policies.query = .highestOnly
        #expect(try await manager.image(forKey: "highest", options: [], context: context).image != nil)
    }

    @Test(arguments: [CachesManager.Policy.serial, .concurrent])
    func storeToAllWithSerialOrConcurrentPolicy(policy: CachesManager.Policy) async throws {
        let (manager, low, high, cleanup) = try makeManager()
        defer { cleanup() }
        manager.policies.store = policy
        try await manager.store(nil, data: Data([1, 2]), forKey: "k", cacheType: .disk, context: ImageCacheContext())
        #expect(low.diskImageData(forKey: "k") == Data([1, 2]))
        #expect(high.diskImageData(forKey: "k") == Data([1, 2]))
    }

    @Test func containsRemoveAndClearFollowTheirPolicies() async throws {
        let (manager, low, high, cleanup) = try makeManager()
        defer { cleanup() }
        try await low.store(nil, data: Data([1]), forKey: "k", cacheType: .disk)
        high.storeImageToMemory(makeImage(), forKey: "k")
        #expect(await manager.containsImage(forKey: "k", cacheType: .all) == .memory)
        #expect(await manager.containsImage(forKey: "k", cacheType: .disk) == .disk)
        manager.policies.contains = .concurrent
        #expect(await manager.containsImage(forKey: "k", cacheType: .disk) == .disk)
        #expect(await manager.containsImage(forKey: "x", cacheType: .all) == .none)
        await manager.removeImage(forKey: "k", cacheType: .all)
        #expect(await low.containsImage(forKey: "k") == .none)
        #expect(await high.containsImage(forKey: "k") == .none)
        try await low.store(makeImage(), data: Data([1]), forKey: "a")
        try await high.store(makeImage(), data: Data([1]), forKey: "b")
        manager.policies.clear = .serial
        await manager.clear(.all)
        #expect(await low.totalDiskCount() == 0)
        #expect(await high.totalDiskCount() == 0)
        #expect(low.memoryCache.count == 0 && high.memoryCache.count == 0)
    }

    @Test func cachesCanBeAddedAndRemoved() throws {
        let (manager, low, _, cleanup) = try makeManager()
        defer { cleanup() }
        #expect(manager.caches.count == 2)
        manager.removeCaches { ($0 as? ImageCache) === low }
        #expect(manager.caches.count == 1)
        manager.addCache(low)
        #expect((manager.caches.last as? ImageCache) === low)
    }

    /// A removal's predicate may use the manager (it runs outside the lock): it used to run
    /// under it, and asking the manager from there took the lock again.
    @Test func aRemovalPredicateMayAskTheManager() throws {
        let (manager, low, _, cleanup) = try makeManager()
        defer { cleanup() }
        manager.removeCaches { cache in manager.caches.count > 1 && (cache as? ImageCache) === low }
        #expect(manager.caches.count == 1)
    }
}
