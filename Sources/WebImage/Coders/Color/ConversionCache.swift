/// The colour conversions made so far, one per distinct source description, so that a
/// thousand Display P3 photos cost one Little CMS transform, not a thousand, and a thousand
/// frames of an HDR animation one set of tone-mapping tables.
///
/// Making a conversion is the expensive part: parsing a profile and building lcms's
/// optimised pipeline (tens of microseconds for a matrix/shaper profile, milliseconds for
/// a CMYK lookup table), or tabulating an HDR tone curve (about half a millisecond);
/// using one is just the per-pixel work. Bounded to ``capacity`` entries, least recently
/// used first out, since the keys come from the files (any profile, any stated peak).
///
/// Thread-safe: the table is behind a ``LockedValue``; a conversion is made outside the
/// lock, so two threads meeting a new key at once may both make it, and the second is
/// dropped.
///
/// ```swift
/// let transform = try ColorTransform.cache.transform(for: profile, input: .rgba)
/// ```
final class ConversionCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var values: [Key: Value] = [:]
        /// Keys from least to most recently used.
        var order: [Key] = []
    }

    /// How many conversions are kept.
    let capacity: Int
    private let state = LockedValue(State())

    /// An empty cache of at most `capacity` conversions.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The conversion for `key`, made by `make` on first use. A failure is not cached.
    func value<Failure: Error>(for key: Key, make: () throws(Failure) -> Value) throws(Failure) -> Value {
        if let found = state.withLock({ state -> Value? in
            guard let found = state.values[key] else { return nil }
            Self.touch(key, in: &state)
            return found
        }) {
            return found
        }
        let made = try make()
        return state.withLock { state -> Value in
            if let raced = state.values[key] { return raced }
            state.values[key] = made
            state.order.append(key)
            while state.order.count > capacity {
                state.values[state.order.removeFirst()] = nil
            }
            return made
        }
    }

    /// How many conversions are held.
    var count: Int { state.withLock { $0.values.count } }

    private static func touch(_ key: Key, in state: inout State) {
        guard let index = state.order.firstIndex(of: key), index != state.order.count - 1 else { return }
        state.order.remove(at: index)
        state.order.append(key)
    }
}

/// Little CMS transforms, keyed by the SHA-256 of the profile's bytes and the pixel layout.
typealias ColorTransformCache = ConversionCache<ColorTransform.CacheKey, ColorTransform>

extension ConversionCache where Key == ColorTransform.CacheKey, Value == ColorTransform {
    /// The transform from `profile` for pixels laid out as `input`, made on first use.
    /// Fails as ``ColorTransform/init(profile:input:)`` does; failures are not cached.
    func transform(for profile: ColorProfile, input: ColorTransform.Input) throws -> ColorTransform {
        try value(for: ColorTransform.CacheKey(digest: profile.digest, input: input)) {
            try ColorTransform(profile: profile, input: input)
        }
    }
}
