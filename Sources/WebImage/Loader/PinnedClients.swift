/// The HTTP clients of pinned downloads (``DownloadRequestOptions/pinnedAddress``), kept
/// after their transfers so that later downloads pinned the same way reuse their
/// connections: one client per host name, pinned address and certificate policy.
///
/// A pin is a client setting (AsyncHTTPClient's DNS override), so each pin needs a client of
/// its own; without reuse every pinned download would open a new connection (and TLS
/// session). A client in use is never shut down; of the idle ones, the least recently used
/// beyond ``idleLimit`` are handed back to be shut down. A plain value under the
/// downloader's lock, generic over the client so its bookkeeping is tested without a network.
///
/// ```swift
/// var clients = PinnedClients<HTTPClient>()
/// let client = clients.acquire(key, for: operation) ?? clients.insert(makeClient(), key, for: operation).client
/// ```
struct PinnedClients<Client> {
    /// What makes two pinned downloads able to share a client.
    struct Key: Hashable {
        var host: String
        var address: String
        var allowsInvalidCertificates: Bool
    }

    private struct Entry {
        var client: Client
        var users: Int
        var lastReleased: UInt64
    }

    /// Idle clients kept at most.
    let idleLimit: Int
    private var entries: [Key: Entry] = [:]
    private var users: [DownloadOperation: Key] = [:]
    private var clock: UInt64 = 0

    init(idleLimit: Int = 16) {
        self.idleLimit = idleLimit
    }

    /// The client kept for `key`, now used by `operation`; `nil` when there is none.
    mutating func acquire(_ key: Key, for operation: DownloadOperation) -> Client? {
        guard var entry = entries[key] else { return nil }
        entry.users += 1
        entries[key] = entry
        users[operation] = key
        return entry.client
    }

    /// Keeps `client` for `key`, used by `operation`. When another transfer stored one for
    /// the same key meanwhile, that one is used and `client` comes back as `surplus`.
    mutating func insert(_ client: Client, _ key: Key, for operation: DownloadOperation) -> (client: Client, surplus: Client?) {
        if let existing = acquire(key, for: operation) { return (existing, client) }
        entries[key] = Entry(client: client, users: 1, lastReleased: 0)
        users[operation] = key
        return (client, nil)
    }

    /// `operation` no longer uses its client; returns the idle clients beyond the limit,
    /// least recently used first, which are forgotten and are the caller's to shut down.
    mutating func release(_ operation: DownloadOperation) -> [Client] {
        guard let key = users.removeValue(forKey: operation), var entry = entries[key] else { return [] }
        clock += 1
        entry.users -= 1
        entry.lastReleased = clock
        entries[key] = entry
        let idle = entries.filter { $0.value.users == 0 }.sorted { $0.value.lastReleased < $1.value.lastReleased }
        guard idle.count > idleLimit else { return [] }
        return idle.prefix(idle.count - idleLimit).map { entries.removeValue(forKey: $0.key)?.client ?? $0.value.client }
    }

    /// Forgets every client, for the caller to shut them down (the downloader's shutdown,
    /// once no transfer runs).
    mutating func removeAll() -> [Client] {
        defer {
            entries.removeAll()
            users.removeAll()
        }
        return entries.values.map(\.client)
    }

    /// How many clients are kept, in use or idle.
    var count: Int { entries.count }
}
