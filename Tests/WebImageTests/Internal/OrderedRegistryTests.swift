import Testing
@testable import WebImage

/// The list behind the coder, loader and cache managers.
@Suite struct OrderedRegistryTests {
    @Test func theLastAddedIsSearchedFirst() {
        let registry = OrderedRegistry([1, 2, 3])
        registry.add(4)
        #expect(registry.first { $0 % 2 == 1 } == 3)
        #expect(registry.first { $0 > 1 } == 4)
        #expect(registry.entries == [1, 2, 3, 4])
    }

    /// The predicate runs outside the lock: one that reads the registry (a coder that
    /// delegates to its manager) used to take the lock a second time from inside it.
    @Test func aRemovalPredicateMayReadTheRegistry() {
        let registry = OrderedRegistry([1, 2, 3, 4])
        registry.removeAll { entry in registry.entries.count == 4 && entry % 2 == 0 }
        #expect(registry.entries == [1, 3])
    }

    /// A removal decided on a snapshot removes the entries the predicate looked at, never
    /// others by position: a list replaced meanwhile is a list added after the removal.
    @Test func aListChangedDuringTheRemovalLosesOnlyTheEntriesLookedAt() {
        let registry = OrderedRegistry([1, 2, 3])
        var looks = 0
        registry.removeAll { entry in
            if looks == 0 { registry.entries = [0, 2, 5, 2] }
            looks += 1
            return entry == 2
        }
        #expect(registry.entries == [0, 2, 5, 2])
        #expect(looks == 3)
        registry.removeAll { $0 == 2 }
        #expect(registry.entries == [0, 5])
    }

    /// A predicate that adds an entry each time it runs (the list never stays the same
    /// between two looks) used to end up running under the lock, where its own `add`
    /// took the lock again and trapped.
    @Test func aPredicateThatChangesTheRegistryEveryTimeIsRunOutsideTheLock() {
        let registry = OrderedRegistry([1, 2, 3, 4])
        registry.removeAll { entry in
            registry.add(10 + entry)
            return entry % 2 == 0
        }
        #expect(registry.entries == [1, 3, 11, 12, 13, 14])
    }
}
