import Foundation
import WebImage

/// MemoryCache against NSCache: the same 10,000 URL-like keys and image objects, looked up
/// in the same pseudo-random order.
struct MemoryBenchmark {
    let keyCount = 10_000
    let operations = 2_000_000

    func run() {
        let pixels = PixelBuffer(width: 1, height: 1, filling: RGBAColor(red: 1, green: 2, blue: 3, alpha: 255))
        let keys = (0..<keyCount).map { "https://images.example.com/photos/\($0)/large.jpg" }
        let nsKeys = ThreadSafe(keys.map { $0 as NSString })
        let images = (0..<keyCount).map { _ in Image(pixels: pixels) }
        // A fixed linear-congruential sequence, precomputed so neither side pays for it.
        let order: [Int] = {
            var order = [Int](repeating: 0, count: operations)
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            for i in order.indices {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                order[i] = Int(state >> 33) % keyCount
            }
            return order
        }()

        let ours = MemoryCache<String, Image>()
        let reference = ThreadSafe(NSCache<NSString, Image>())
        for i in 0..<keyCount {
            ours.setValue(images[i], forKey: keys[i], cost: 4)
            reference.value.setObject(images[i], forKey: nsKeys.value[i], cost: 4)
        }

        for threads in [1, 2] {
            let perThread = operations / threads
            let (oursGet, referenceGet) = bestOfAlternating(
                ours: {
                    timed(threads: threads) { thread in
                        var hits = 0
                        for i in (thread * perThread)..<((thread + 1) * perThread) where ours.value(forKey: keys[order[i]]) != nil {
                            hits += 1
                        }
                        precondition(hits == perThread)
                    }
                },
                reference: {
                    timed(threads: threads) { thread in
                        var hits = 0
                        for i in (thread * perThread)..<((thread + 1) * perThread)
                        where reference.value.object(forKey: nsKeys.value[order[i]]) != nil {
                            hits += 1
                        }
                        precondition(hits == perThread)
                    }
                }
            )
            report(
                "memory get, \(threads) thread\(threads > 1 ? "s" : "") (ns/op)",
                ours: oursGet * 1e9 / Double(operations), reference: referenceGet * 1e9 / Double(operations),
                unit: "ns", referenceName: "NSCache"
            )
            let (oursSet, referenceSet) = bestOfAlternating(
                ours: {
                    timed(threads: threads) { thread in
                        for i in (thread * perThread)..<((thread + 1) * perThread) {
                            ours.setValue(images[order[i]], forKey: keys[order[i]], cost: 4)
                        }
                    }
                },
                reference: {
                    timed(threads: threads) { thread in
                        for i in (thread * perThread)..<((thread + 1) * perThread) {
                            reference.value.setObject(images[order[i]], forKey: nsKeys.value[order[i]], cost: 4)
                        }
                    }
                }
            )
            report(
                "memory set, \(threads) thread\(threads > 1 ? "s" : "") (ns/op)",
                ours: oursSet * 1e9 / Double(operations), reference: referenceSet * 1e9 / Double(operations),
                unit: "ns", referenceName: "NSCache"
            )
        }

        // Eviction-heavy sets: a count limit of half the keys makes every other set evict.
        let limited = MemoryCache<String, Image>(countLimit: keyCount / 2)
        let limitedReference = ThreadSafe(NSCache<NSString, Image>())
        limitedReference.value.countLimit = keyCount / 2
        let (oursEvicting, referenceEvicting) = bestOfAlternating(
            ours: {
                timed(threads: 1) { _ in
                    for i in 0..<operations { limited.setValue(images[order[i]], forKey: keys[order[i]], cost: 4) }
                }
            },
            reference: {
                timed(threads: 1) { _ in
                    for i in 0..<operations {
                        limitedReference.value.setObject(images[order[i]], forKey: nsKeys.value[order[i]], cost: 4)
                    }
                }
            }
        )
        report(
            "memory set with eviction (ns/op)",
            ours: oursEvicting * 1e9 / Double(operations), reference: referenceEvicting * 1e9 / Double(operations),
            unit: "ns", referenceName: "NSCache"
        )
    }
}

/// Carries Foundation objects that are thread-safe but not marked `Sendable` on Linux into
/// the benchmark's concurrent closures: NSCache is documented as safe to use from several
/// threads at once, and the NSString keys are immutable.
struct ThreadSafe<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
