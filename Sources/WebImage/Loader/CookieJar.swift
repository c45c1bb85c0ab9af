import Foundation

/// The cookies the downloader sends and stores for loads that ask for it
/// (``DownloadRequestOptions/handleCookies``, the manager's `.handleCookies`) — the part of
/// `HTTPCookieStorage` that SDWebImage's `HandleCookies` flag relies on.
///
/// In memory only, and bounded: at most ``Limits/cookiesPerDomain`` per domain and
/// ``Limits/totalCookies`` in all, the least recently used going first, so a hostile server
/// cannot grow it without end. Thread-safe.
///
/// ```swift
/// var config = Downloader.Configuration()
/// config.cookieJar = CookieJar()          // a jar of its own instead of the shared one
/// let result = try await ImageManager.shared.loadImage(with: url, options: .handleCookies)
/// ```
public final class CookieJar: Sendable {
    /// The bounds a jar keeps to.
    public struct Limits: Sendable {
        /// Cookies kept for one domain. RFC 6265 asks for at least 50.
        public var cookiesPerDomain = 50
        /// Cookies kept in all. RFC 6265 asks for at least 3000.
        public var totalCookies = 3000

        /// Creates the default limits.
        public init() {}
    }

    private struct Entry {
        var cookie: Cookie
        var created: UInt64
        var lastUsed: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
    }

    private struct Key: Hashable {
        var name: String
        var domain: String
        var path: String
    }

    /// The jar the downloaders share unless their configuration names another.
    public static let shared = CookieJar()

    /// The limits this jar keeps to.
    public let limits: Limits
    private let state = LockedValue(State())

    /// Creates an empty jar.
    public init(limits: Limits = Limits()) {
        var bounded = limits
        bounded.cookiesPerDomain = max(1, limits.cookiesPerDomain)
        bounded.totalCookies = max(1, limits.totalCookies)
        self.limits = bounded
    }

    /// Every cookie held that has not expired at `now`.
    public func cookies(now: Date = Date()) -> [Cookie] {
        state.withLock { $0.entries.values.map(\.cookie).filter { !$0.isExpired(at: now) } }
    }

    /// Stores (or replaces, or with a past expiry deletes) `cookie`.
    public func set(_ cookie: Cookie, now: Date = Date()) {
        state.withLock { state in
            let key = Key(name: cookie.name, domain: cookie.domain, path: cookie.path)
            if cookie.isExpired(at: now) {
                state.entries[key] = nil
                return
            }
            state.clock += 1
            let created = state.entries[key]?.created ?? state.clock
            state.entries[key] = Entry(cookie: cookie, created: created, lastUsed: state.clock)
            evict(&state, domain: cookie.domain, now: now)
        }
    }

    /// Stores the cookies of a response from `url`: every `Set-Cookie` header value, the
    /// ones a user agent must ignore skipped. A response over plain `http` may neither set
    /// a `Secure` cookie nor replace or shadow one (RFC 6265bis 5.7, "Leave Secure Cookies
    /// Alone", which curl follows): anyone on the network path could otherwise overwrite
    /// the session cookie later `https` requests send.
    public func setCookies(fromHeaders values: [String], for url: URL, now: Date = Date()) {
        let isSecureOrigin = url.scheme?.lowercased() == "https"
        for value in values {
            guard let cookie = Cookie(setCookie: value, from: url, now: now) else { continue }
            if !isSecureOrigin, cookie.isSecure || shadowsSecureCookie(cookie, now: now) { continue }
            set(cookie, now: now)
        }
    }

    /// Whether the jar holds a `Secure` cookie of `cookie`'s name whose domain and
    /// `cookie`'s overlap and whose path `cookie`'s path is within.
    private func shadowsSecureCookie(_ cookie: Cookie, now: Date) -> Bool {
        state.withLock { state in
            state.entries.values.contains { entry in
                let held = entry.cookie
                return held.isSecure && held.name == cookie.name && !held.isExpired(at: now)
                    && (Cookie.domain(held.domain, matches: cookie.domain) || Cookie.domain(cookie.domain, matches: held.domain))
                    && Cookie.path(cookie.path, matches: held.path)
            }
        }
    }

    /// The `Cookie` header for a request to `url`, or `nil` when no cookie matches.
    /// Longer paths first, then older cookies first (RFC 6265 5.4).
    public func cookieHeader(for url: URL, now: Date = Date()) -> String? {
        let matching: [Cookie] = state.withLock { state in
            state.clock += 1
            var found: [Entry] = []
            for (key, entry) in state.entries {
                if entry.cookie.isExpired(at: now) {
                    state.entries[key] = nil
                } else if entry.cookie.matches(url) {
                    state.entries[key]?.lastUsed = state.clock
                    found.append(entry)
                }
            }
            found.sort { ($0.cookie.path.count, $1.created) > ($1.cookie.path.count, $0.created) }
            return found.map(\.cookie)
        }
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Forgets every cookie.
    public func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }

    /// Drops expired cookies, then the least recently used ones over the limits.
    private func evict(_ state: inout State, domain: String, now: Date) {
        let inDomain = state.entries.filter { $0.value.cookie.domain == domain }
        if inDomain.count > limits.cookiesPerDomain {
            for (key, _) in inDomain.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }).prefix(inDomain.count - limits.cookiesPerDomain) {
                state.entries[key] = nil
            }
        }
        guard state.entries.count > limits.totalCookies else { return }
        for (key, entry) in state.entries where entry.cookie.isExpired(at: now) { state.entries[key] = nil }
        let excess = state.entries.count - limits.totalCookies
        guard excess > 0 else { return }
        for (key, _) in state.entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }).prefix(excess) {
            state.entries[key] = nil
        }
    }
}
