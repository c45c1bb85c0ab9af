import NIOPosix
import WebImage
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves a source's host to every address it has, so each can be checked before any
/// connection is made.
///
/// A host written as an address (in any spelling ``IPAddress`` parses) is that address,
/// without a lookup. A name goes through the system resolver (`getaddrinfo`, as the HTTP
/// client itself would use), so it obeys `/etc/hosts` and `nsswitch.conf` the way a plain
/// fetch would.
///
/// Lookups run on threads of their own, at most ``maximumPendingLookups`` at a time, each
/// on a thread of its own. A name server that drops queries keeps `getaddrinfo` blocked
/// for 10 to 30 seconds (5 s per attempt and server), past any download timeout: the
/// request gives up, the lookup does not. On NIO's shared blocking pool (a thread per core,
/// which also reads and writes the disk caches) such lookups stalled every disk hit behind
/// them, and queued without end. With fewer threads than admitted lookups, a few slow names
/// (eight, with eight threads) stalled every other source's lookup behind them; with a
/// thread for each, a slow name holds up only itself, and past the bound a source fails at
/// once.
///
/// ```swift
/// let addresses = try await HostResolver.addresses(of: "localhost")   // [::1, 127.0.0.1]
/// ```
public enum HostResolver {
    /// Every address `host` resolves to, in the resolver's order.
    /// - Throws: ``ImageServerError/sourceFailed(_:)`` (502) when the name does not resolve.
    public static func addresses(of host: String) async throws(ImageServerError) -> [IPAddress] {
        try await addresses(of: host, within: .shared, lookingUpWith: lookUp)
    }

    /// ``addresses(of:)`` with the bound and the blocking lookup given (the tests' own
    /// bound, and their stand-in for a name server that does not answer).
    static func addresses(
        of host: String,
        within bound: PendingLookups,
        lookingUpWith lookUp: @escaping @Sendable (String) -> Result<[IPAddress], ImageServerError>
    ) async throws(ImageServerError) -> [IPAddress] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if let address = IPAddress(parsing: name) { return [address] }
        // `getaddrinfo` reads a C string: a NUL would cut the name it looks up short.
        guard !name.unicodeScalars.contains("\0") else {
            throw .sourceFailed("the source host has a NUL character")
        }
        let lookup = name
        guard bound.admit() else {
            throw .sourceFailed("the source host could not be resolved: \(bound.maximum) lookups are already waiting")
        }
        defer { bound.leave() }
        let result: Result<[IPAddress], ImageServerError>
        do {
            result = try await pool.run { lookUp(lookup) }
        } catch {
            throw .sourceFailed("the source host could not be resolved", detail: "\(error)")
        }
        return try result.get()
    }

    /// Lookups running at once, beyond which a source fails at once with a 502. Each has a
    /// thread (an idle one costs its stack's address space, not memory), so none waits for
    /// another.
    public static let maximumPendingLookups = 64

    /// A count of lookups waiting or running, held to a maximum. Thread-safe.
    final class PendingLookups: Sendable {
        /// The server's: ``maximumPendingLookups``.
        static let shared = PendingLookups(maximum: maximumPendingLookups)

        let maximum: Int
        private let count = LockedValue(0)

        init(maximum: Int) {
            self.maximum = maximum
        }

        /// Lookups waiting or running now.
        var current: Int { count.withLock { $0 } }

        /// Counts one more lookup, unless the maximum is reached.
        func admit() -> Bool {
            count.withLock { count in
                guard count < maximum else { return false }
                count += 1
                return true
            }
        }

        /// One lookup ended.
        func leave() {
            count.withLock { $0 -= 1 }
        }
    }

    /// The resolver's threads, for the life of the process, as NIO's own singletons are: one
    /// for each lookup the shared bound admits.
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: maximumPendingLookups)
        pool.start()
        return pool
    }()

    /// `getaddrinfo` for stream sockets of either family; blocks.
    static func lookUp(_ name: String) -> Result<[IPAddress], ImageServerError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc) || canImport(Musl)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0 else {
            let reason = gai_strerror(status).map { String(cString: $0) } ?? "error \(status)"
            // Whether an internal name resolves is for the log: the body is the same for
            // every name.
            return .failure(.sourceFailed("the source host could not be resolved", detail: "\(name.prefix(200)): \(reason)"))
        }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry?.pointee {
            if let address = current.ai_addr.flatMap(Self.address(of:)), !addresses.contains(address) {
                addresses.append(address)
            }
            entry = current.ai_next
        }
        return .success(addresses)
    }

    /// The address in a `sockaddr_in` or `sockaddr_in6`.
    private static func address(of socketAddress: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                .v4(UInt32(bigEndian: $0.pointee.sin_addr.s_addr))
            }
        case AF_INET6:
            return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                let bytes = withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                return .v6(bytes.reduce(UInt128(0)) { $0 << 8 | UInt128($1) })
            }
        default:
            return nil
        }
    }
}
