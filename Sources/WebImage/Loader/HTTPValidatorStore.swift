import Foundation
import NIOHTTP1

/// The HTTP validators of recent responses, by key: the downloader's by URL, so that a
/// revalidation given no validators of its own still asks "changed since?" (what
/// URLSession's cache gives SDWebImage's `RefreshCached`); the manager's by cache key,
/// each tied to the bytes it described, so that a refresh asks only about the bytes its
/// cache holds.
///
/// In memory and bounded, by count and by bytes (least recently used first out): keys can
/// be as long as a request line allows (an image server's source URLs reach tens of
/// kilobytes), so a count alone would let an origin that tags every response pin hundreds
/// of megabytes. A validator that was evicted or never seen only means a full response.
/// Thread-safe.
final class HTTPValidatorStore: Sendable {
    /// The bytes a response's validators described: their length and a hash, enough to
    /// tell the cached version from another (the hash is seeded per process, and the store
    /// lives in memory only).
    struct BodyFingerprint: Sendable, Equatable {
        let count: Int
        let hash: Int

        init(_ body: Data) {
            var hasher = Hasher()
            body.withUnsafeBytes { hasher.combine(bytes: $0) }
            count = body.count
            hash = hasher.finalize()
        }
    }

    private struct Entry: Sendable {
        var validators: HTTPValidators
        var body: BodyFingerprint?
    }

    private let entries: LockedValue<LRUList<String, Entry>>
    private let capacity: Int
    private let byteLimit: Int

    /// A store of at most `capacity` keys whose keys and validators take at most
    /// `byteLimit` bytes together (4 MiB by default: 2,000 URLs of 2 KB).
    init(capacity: Int = 2000, byteLimit: Int = 4 << 20) {
        self.capacity = max(1, capacity)
        self.byteLimit = max(1, byteLimit)
        entries = LockedValue(LRUList())
    }

    /// Remembers the validators of a successful response for `url`, or forgets the URL's
    /// old ones when the response has none.
    func record(_ headers: HTTPHeaders, for url: URL) {
        record(HTTPValidators(headers: headers), forKey: url.absoluteString, describing: nil)
    }

    /// Remembers `validators` for `key`, tied to `body` when given (then
    /// ``validators(forKey:describing:)`` answers only for those bytes); empty validators
    /// forget the key's old ones.
    func record(_ validators: HTTPValidators, forKey key: String, describing body: Data?) {
        let cost = key.utf8.count + (validators.entityTag?.utf8.count ?? 0) + (validators.lastModified?.utf8.count ?? 0)
        // Hashed before the lock: the body can be megabytes.
        let entry = Entry(validators: validators, body: validators.isEmpty ? nil : body.map(BodyFingerprint.init))
        entries.withLock { list in
            // One entry larger than the whole budget is not kept (nor the key's old one).
            guard !validators.isEmpty, cost <= byteLimit else {
                _ = list.remove(key)
                return
            }
            _ = list.set(entry, forKey: key, cost: cost)
            while list.count > capacity || list.totalCost > byteLimit { _ = list.removeLeastRecent() }
        }
    }

    /// The validators last recorded for `url`.
    func validators(for url: URL) -> HTTPValidators? {
        entries.withLock { $0.value(forKey: url.absoluteString)?.validators }
    }

    /// The validators recorded for `key` with exactly these bytes; `nil` when none were, or
    /// they described other bytes (another version of the resource).
    func validators(forKey key: String, describing body: Data) -> HTTPValidators? {
        guard let entry = entries.withLock({ $0.value(forKey: key) }), let recorded = entry.body,
              recorded.count == body.count, recorded == BodyFingerprint(body) else { return nil }
        return entry.validators
    }

    /// Adds `If-None-Match` / `If-Modified-Since` for `url` to `headers`, unless the
    /// request already carries its own (a request modifier's choice wins).
    func addConditions(for url: URL, to headers: inout HTTPHeaders) {
        validators(for: url)?.addConditions(to: &headers)
    }
}
