import NIOPosix
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
/// client itself would use) on NIO's blocking-I/O threads, so it obeys `/etc/hosts` and
/// `nsswitch.conf` the way a plain fetch would.
///
/// ```swift
/// let addresses = try await HostResolver.addresses(of: "localhost")   // [::1, 127.0.0.1]
/// ```
public enum HostResolver {
    /// Every address `host` resolves to, in the resolver's order.
    /// - Throws: ``ImageServerError/sourceFailed(_:)`` (502) when the name does not resolve.
    public static func addresses(of host: String) async throws(ImageServerError) -> [IPAddress] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if let address = IPAddress(parsing: name) { return [address] }
        // `getaddrinfo` reads a C string: a NUL would cut the name it looks up short.
        guard !name.unicodeScalars.contains("\0") else {
            throw .sourceFailed("the source host has a NUL character")
        }
        let lookup = name
        let result: Result<[IPAddress], ImageServerError>
        do {
            result = try await NIOThreadPool.singleton.run { lookUp(lookup) }
        } catch {
            throw .sourceFailed("the source host could not be resolved: \(error)")
        }
        return try result.get()
    }

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
            return .failure(.sourceFailed("the source host \(name.prefix(200)) does not resolve: \(reason)"))
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
