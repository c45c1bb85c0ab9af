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
    /// SplitMix64 generator started at `seed`, so failures reproduce.
    static func byteFlips(of data: Data, seed: UInt64, count: Int, flipsPerCopy: Int = 4) -> [Data] {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return (0..<count).map { _ in
            var copy = [UInt8](data)
            for _ in 0..<flipsPerCopy {
                let position = Int(next() % UInt64(copy.count))
                copy[position] ^= UInt8(truncatingIfNeeded: next() | 1)
            }
            return Data(copy)
        }
    }
}
