import Foundation
import NIOHTTP1

/// The HTTP validators (`ETag`, `Last-Modified`) of recent downloads, so that revalidating
/// cached bytes (the manager's `.refreshCached`) asks the server "changed since?" with
/// `If-None-Match` / `If-Modified-Since`, and an unchanged image costs a 304 and no body —
/// what URLSession's cache gives SDWebImage's `RefreshCached`.
///
/// In memory and bounded, by count and by bytes (least recently used first out): the URLs
/// are the keys, and a URL can be as long as a request line allows (an image server's
/// source URLs reach tens of kilobytes), so a count alone would let an origin that tags
/// every response pin hundreds of megabytes of URLs. A validator that was evicted or never
/// seen only means a full response, which the manager then compares byte for byte.
///
/// Validators belong to the bytes they came with: a revalidation asks with them only when
/// the cached bytes are those bytes (``BodyFingerprint``). Any caller's download of the URL
/// records them, and a cache still holding version 1 was asked "changed since version 2?"
/// after another caller had seen version 2: the 304 kept version 1 for good.
/// Thread-safe.
final class HTTPValidatorStore: Sendable {
    /// What a server said to identify one version of a resource, and which bytes it came
    /// with (`nil` for a body streamed to a file, which is not in memory to examine).
    struct Validators: Sendable, Equatable {
        var entityTag: String?
        var lastModified: String?
        var body: BodyFingerprint?
    }

    /// A cheap identity of a body: its length and a hash of its first and last 4 KiB. Two
    /// versions of one image that agree on all three are rare; the cost is the same for a
    /// 1 KB and a 100 MB body. Process-local (`Hasher` is seeded per process), as the
    /// store is.
    struct BodyFingerprint: Sendable, Equatable {
        let count: Int
        let edges: Int

        init(_ body: Data) {
            var hasher = Hasher()
            let edge = 4096
            body.prefix(edge).withUnsafeBytes { hasher.combine(bytes: $0) }
            body.suffix(edge).withUnsafeBytes { hasher.combine(bytes: $0) }
            count = body.count
            edges = hasher.finalize()
        }
    }

    /// The longest validator kept; a server sending more is not identifying a version.
    static let maximumLength = 1024

    private let entries: LockedValue<LRUList<URL, Validators>>
    private let capacity: Int
    private let byteLimit: Int

    /// A store of at most `capacity` URLs whose URLs and validators take at most
    /// `byteLimit` bytes together (4 MiB by default: 2,000 URLs of 2 KB).
    init(capacity: Int = 2000, byteLimit: Int = 4 << 20) {
        self.capacity = max(1, capacity)
        self.byteLimit = max(1, byteLimit)
        entries = LockedValue(LRUList())
    }

    /// Remembers the validators of a successful response for `url`, with the body they
    /// came with (`nil` when it was streamed to a file), or forgets the URL's old ones when
    /// the response has none.
    func record(_ headers: HTTPHeaders, for url: URL, body: Data?) {
        let validators = Validators(
            entityTag: Self.usable(headers.first(name: "ETag")),
            lastModified: Self.usable(headers.first(name: "Last-Modified")),
            body: body.map(BodyFingerprint.init)
        )
        let cost = url.absoluteString.utf8.count + (validators.entityTag?.utf8.count ?? 0)
            + (validators.lastModified?.utf8.count ?? 0)
        entries.withLock { list in
            // One entry larger than the whole budget is not kept (nor the URL's old one).
            guard validators.entityTag != nil || validators.lastModified != nil, cost <= byteLimit else {
                _ = list.remove(url)
                return
            }
            _ = list.set(validators, forKey: url, cost: cost)
            while list.count > capacity || list.totalCost > byteLimit { _ = list.removeLeastRecent() }
        }
    }

    /// The validators last recorded for `url`.
    func validators(for url: URL) -> Validators? {
        entries.withLock { $0.value(forKey: url) }
    }

    /// Adds `If-None-Match` / `If-Modified-Since` for `url` to `headers` when they came
    /// with `cachedData` (or with a streamed body, which could not be examined), unless the
    /// request already carries its own (a request modifier's choice wins).
    func addConditions(for url: URL, cachedData: Data, to headers: inout HTTPHeaders) {
        guard let validators = validators(for: url) else { return }
        if let body = validators.body, body != BodyFingerprint(cachedData) { return }
        if let tag = validators.entityTag, !headers.contains(name: "If-None-Match") {
            headers.add(name: "If-None-Match", value: tag)
        }
        if let date = validators.lastModified, !headers.contains(name: "If-Modified-Since") {
            headers.add(name: "If-Modified-Since", value: date)
        }
    }

    private static func usable(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= maximumLength else { return nil }
        // A header value with a line break would split the request it is copied into.
        // (Bytes, not Characters: "\r\n" is one Character and equals neither.)
        guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return nil }
        return value
    }
}
