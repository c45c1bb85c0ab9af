import NIOHTTP1

/// What a server said to identify one version of a resource: its `ETag` and
/// `Last-Modified`. A revalidation sends them back (`If-None-Match`, `If-Modified-Since`)
/// to ask "changed since?", and an unchanged image costs a 304 and no body.
///
/// Give them with the cached bytes they describe (``DownloadRequestOptions/cachedDataValidators``):
/// validators of another version would have the server answer for that version, and a
/// 304 would keep the cached one for good. A value: thread-safe.
public struct HTTPValidators: Sendable, Hashable {
    /// The `ETag`, quotes and `W/` included, as the server sent it.
    public var entityTag: String?
    /// The `Last-Modified` date, as the server sent it.
    public var lastModified: String?

    /// The longest validator taken; a server sending more is not identifying a version.
    static let maximumLength = 1024

    /// Validators with the given values, as they are.
    public init(entityTag: String? = nil, lastModified: String? = nil) {
        self.entityTag = entityTag
        self.lastModified = lastModified
    }

    /// The validators of a response's headers. A value over 1 KB, or with a line break
    /// (copied into a request, it would split it), is not taken.
    public init(headers: HTTPHeaders) {
        self.init(entityTag: Self.usable(headers.first(name: "ETag")), lastModified: Self.usable(headers.first(name: "Last-Modified")))
    }

    /// Whether there is neither validator: a revalidation with these asks unconditionally.
    public var isEmpty: Bool { entityTag == nil && lastModified == nil }

    /// Adds `If-None-Match` / `If-Modified-Since` to `headers`, unless the request already
    /// carries its own (a request modifier's choice wins).
    func addConditions(to headers: inout HTTPHeaders) {
        if let entityTag, !headers.contains(name: "If-None-Match") {
            headers.add(name: "If-None-Match", value: entityTag)
        }
        if let lastModified, !headers.contains(name: "If-Modified-Since") {
            headers.add(name: "If-Modified-Since", value: lastModified)
        }
    }

    private static func usable(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= maximumLength else { return nil }
        // Bytes, not Characters: "\r\n" is one Character and equals neither.
        guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return nil }
        return value
    }
}
