/// The transforms made so far, one per distinct profile and pixel layout, so that a
/// thousand Display P3 photos cost one Little CMS transform, not a thousand.
///
/// Making a transform parses the profile and builds lcms's optimised pipeline (tens of
/// microseconds for a matrix/shaper profile, milliseconds for a CMYK lookup table); using
/// one is just the per-pixel work. Keyed by the SHA-256 of the profile's bytes, bounded to
/// ``capacity`` entries, least recently used first out. Thread-safe: the table is behind a
/// ``LockedValue``; a transform is made outside the lock, so two threads meeting a new
/// profile at once may both make it, and the second is dropped.
final class ColorTransformCache: Sendable {
    /// The cache every decoder uses.
    static let shared = ColorTransformCache(capacity: 32)

    private struct Key: Hashable {
        var digest: [UInt8]
        var input: ColorTransform.Input
    }

    private struct State {
        var transforms: [Key: ColorTransform] = [:]
        /// Keys from least to most recently used.
        var order: [Key] = []
    }

    /// How many transforms are kept.
    let capacity: Int
    private let state = LockedValue(State())

    /// An empty cache of at most `capacity` transforms.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The transform from `profile` for pixels laid out as `input`, made on first use.
    /// Fails as ``ColorTransform/init(profile:input:)`` does; failures are not cached.
    func transform(for profile: ColorProfile, input: ColorTransform.Input) throws -> ColorTransform {
        let key = Key(digest: profile.digest, input: input)
        if let found = state.withLock({ state -> ColorTransform? in
            guard let found = state.transforms[key] else { return nil }
            Self.touch(key, in: &state)
            return found
        }) {
            return found
        }
        let made = try ColorTransform(profile: profile, input: input)
        return state.withLock { state -> ColorTransform in
            if let raced = state.transforms[key] { return raced }
            state.transforms[key] = made
            state.order.append(key)
            while state.order.count > capacity {
                state.transforms[state.order.removeFirst()] = nil
            }
            return made
        }
    }

    /// How many transforms are held.
    var count: Int { state.withLock { $0.transforms.count } }

    private static func touch(_ key: Key, in state: inout State) {
        guard let index = state.order.firstIndex(of: key), index != state.order.count - 1 else { return }
        state.order.remove(at: index)
        state.order.append(key)
    }
}
