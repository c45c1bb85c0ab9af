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
/// Thread-safe.
final class HTTPValidatorStore: Sendable {
    /// What a server said to identify one version of a resource.
    struct Validators: Sendable, Equatable {
        var entityTag: String?
        var lastModified: String?
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

    /// Remembers the validators of a successful response for `url`, or forgets the URL's
    /// old ones when the response has none.
    func record(_ headers: HTTPHeaders, for url: URL) {
        let validators = Validators(
            entityTag: Self.usable(headers.first(name: "ETag")),
            lastModified: Self.usable(headers.first(name: "Last-Modified"))
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

    /// Adds `If-None-Match` / `If-Modified-Since` for `url` to `headers`, unless the
    /// request already carries its own (a request modifier's choice wins).
    func addConditions(for url: URL, to headers: inout HTTPHeaders) {
        guard let validators = validators(for: url) else { return }
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
