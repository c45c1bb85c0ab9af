import Foundation
import Testing
@testable import WebImage

@Suite("MemoryCache")
struct MemoryCacheTests {
    @Test func returnsTheSameObjectThatWasStored() {
        let cache = MemoryCache<String, Image>()
        let image = makeImage()
        cache.setValue(image, forKey: "a", cost: image.memoryCost)
        #expect(cache.value(forKey: "a") === image)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.totalCost == image.memoryCost)
        #expect(cache.count == 1)
    }

    @Test func evictsTheLeastRecentlyUsedEntryOverTheCountLimit() {
        let cache = MemoryCache<String, Int>(countLimit: 3)
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")
        cache.setValue(3, forKey: "c")
        #expect(cache.value(forKey: "a") == 1)   // "b" is now the least recent
        cache.setValue(4, forKey: "d")
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.keysInRecencyOrder == ["d", "a", "c"])
    }

    @Test func evictsUntilUnderTheCostLimit() {
        let cache = MemoryCache<String, Int>(totalCostLimit: 100)
        for i in 0..<10 { cache.setValue(i, forKey: "\(i)", cost: 20) }
        #expect(cache.totalCost == 100)
        #expect(cache.count == 5)
        #expect(cache.keysInRecencyOrder == ["9", "8", "7", "6", "5"])
    }

    @Test func doesNotKeepAnEntryLargerThanTheCostLimit() {
        let cache = MemoryCache<String, Int>(totalCostLimit: 100)
        cache.setValue(1, forKey: "small", cost: 10)
        cache.setValue(2, forKey: "big", cost: 101)
        #expect(cache.value(forKey: "big") == nil)
        #expect(cache.value(forKey: "small") == 1)
        // Replacing an existing key with an oversized value removes the old one too.
        cache.setValue(3, forKey: "small", cost: 500)
        #expect(cache.value(forKey: "small") == nil)
        #expect(cache.totalCost == 0)
    }

    @Test func loweringTheLimitsEvictsAtOnce() {
        let cache = MemoryCache<String, Int>()
        for i in 0..<10 { cache.setValue(i, forKey: "\(i)", cost: 10) }
        cache.totalCostLimit = 50
        #expect(cache.count == 5)
        #expect(cache.totalCost == 50)
        cache.countLimit = 2
        #expect(cache.keysInRecencyOrder == ["9", "8"])
        cache.countLimit = 0
        cache.totalCostLimit = 0
        for i in 10..<20 { cache.setValue(i, forKey: "\(i)", cost: 10) }
        #expect(cache.count == 12)
    }

    @Test func replacingAValueUpdatesItsCost() {
        let cache = MemoryCache<String, Int>()
        cache.setValue(1, forKey: "a", cost: 10)
        cache.setValue(2, forKey: "a", cost: 30)
        #expect(cache.totalCost == 30)
        #expect(cache.count == 1)
        #expect(cache.value(forKey: "a") == 2)
    }

    @Test func removeAndRemoveAllForgetEntries() {
        let cache = MemoryCache<String, Int>()
        cache.setValue(1, forKey: "a", cost: 1)
        cache.setValue(2, forKey: "b", cost: 2)
        #expect(cache.removeValue(forKey: "a") == 1)
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.totalCost == 2)
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
        #expect(cache.value(forKey: "b") == nil)
    }

    @Test func reusesFreedSlotsWithoutMixingEntries() {
        let cache = MemoryCache<Int, Int>(countLimit: 8)
        for i in 0..<1000 { cache.setValue(i * 10, forKey: i) }
        for i in 992..<1000 { #expect(cache.value(forKey: i) == i * 10) }
        for i in 0..<992 { #expect(cache.value(forKey: i) == nil) }
        #expect(cache.count == 8)
    }

    @Test func weakTableFindsAnEvictedImageStillReferencedElsewhere() {
        let cache = MemoryCache<String, Image>(countLimit: 1, usesWeakTable: true)
        let held = makeImage()
        cache.setValue(held, forKey: "held", cost: held.memoryCost)
        cache.setValue(makeImage(), forKey: "other", cost: 1)   // evicts "held" from the strong list
        #expect(!cache.keysInRecencyOrder.contains("held"))
        #expect(cache.value(forKey: "held") === held)
        // Found again, it is re-inserted (and evicts "other" under the count limit).
        #expect(cache.keysInRecencyOrder == ["held"])
    }

    @Test func weakTableDoesNotKeepAnImageNobodyHolds() {
        let cache = MemoryCache<String, Image>(countLimit: 1, usesWeakTable: true)
        do {
            let transient = makeImage()
            cache.setValue(transient, forKey: "transient", cost: 1)
        }
        cache.setValue(makeImage(), forKey: "other", cost: 1)
        #expect(cache.value(forKey: "transient") == nil)
    }

    @Test func withoutTheWeakTableAnEvictedImageIsGone() {
        let cache = MemoryCache<String, Image>(countLimit: 1)
        let held = makeImage()
        cache.setValue(held, forKey: "held", cost: 1)
        cache.setValue(makeImage(), forKey: "other", cost: 1)
        #expect(cache.value(forKey: "held") == nil)
    }

    @Test func removingAKeyAlsoForgetsItsWeakReference() {
        let cache = MemoryCache<String, Image>(usesWeakTable: true)
        let held = makeImage()
        cache.setValue(held, forKey: "held", cost: 1)
        cache.removeValue(forKey: "held")
        #expect(cache.value(forKey: "held") == nil)
        #expect(!cache.containsValue(forKey: "held"))
    }

    @Test func trimToCostEvictsOldestFirst() {
        let cache = MemoryCache<String, Int>()
        for i in 0..<4 { cache.setValue(i, forKey: "\(i)", cost: 10) }
        cache.trim(toCost: 15)
        #expect(cache.keysInRecencyOrder == ["3"])
    }

    @Test func concurrentUseKeepsCountAndCostConsistent() async {
        let cache = MemoryCache<Int, Int>(totalCostLimit: 1000, countLimit: 64)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in 0..<5000 {
                        let key = (i * 7 + worker) % 200
                        switch i % 4 {
                        case 0, 1: cache.setValue(key, forKey: key, cost: key % 20)
                        case 2: if let value = cache.value(forKey: key) { precondition(value == key) }
                        default: cache.removeValue(forKey: key)
                        }
                    }
                }
            }
        }
        #expect(cache.count <= 64)
        #expect(cache.totalCost <= 1000)
        let keys = cache.keysInRecencyOrder
        #expect(keys.count == cache.count)
        #expect(keys.reduce(0) { $0 + $1 % 20 } == cache.totalCost)
    }
}
