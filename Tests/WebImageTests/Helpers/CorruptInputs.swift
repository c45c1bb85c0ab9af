import Foundation

/// Deterministic damaged copies of valid image bytes, for the "never crash, never hang"
/// tests every decoder has.
enum CorruptInputs {
    /// Prefixes of `data` cut at `count` points spread over its length (never the whole).
    static func truncations(of data: Data, count: Int) -> [Data] {
        guard data.count > 1 else { return [] }
        let cuts = Set((1...count).map { max(1, data.count * $0 / (count + 1)) })
        return cuts.sorted().map { data.prefix($0) }
    }

    /// `count` copies of `data`, each with a few bytes replaced at positions drawn from a
    /// ``SplitMix64`` generator started at `seed`, so failures reproduce.
    static func byteFlips(of data: Data, seed: UInt64, count: Int, flipsPerCopy: Int = 4) -> [Data] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            var copy = [UInt8](data)
            for _ in 0..<flipsPerCopy {
                let position = Int(random.next() % UInt64(copy.count))
                copy[position] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            }
            return Data(copy)
        }
    }

    /// `rounds` damaged copies taking `sources` in turn: each has 1 to 4 bytes XORed with
    /// a value from 1 to 255, count, positions and values drawn from a ``SplitMix64``
    /// generator started at `seed`.
    static func byteFlips(cycling sources: [Data], seed: UInt64, rounds: Int) -> [Data] {
        var random = SplitMix64(seed: seed)
        return (0..<rounds).map { round in
            var bytes = [UInt8](sources[round % sources.count])
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let at = Int(random.next() % UInt64(bytes.count))
                bytes[at] ^= UInt8(1 + random.next() % 255)
            }
            return Data(bytes)
        }
    }
}
