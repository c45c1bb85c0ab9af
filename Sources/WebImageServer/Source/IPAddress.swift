#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as a number: what the source-address checks classify and match
/// against networks.
///
/// Parsing accepts every spelling a resolver would connect to, not just the canonical one:
/// the BSD `inet_aton` forms of IPv4 (`2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1`), which
/// `getaddrinfo` and browsers turn into the same address, and any IPv6 text form. So a host
/// written as a number is classified by the address it reaches, however it is spelled.
///
/// ```swift
/// IPAddress(parsing: "0x7f.1")      // 127.0.0.1
/// IPAddress(parsing: "[::1]")       // ::1
/// ```
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 address, most significant byte first (`127.0.0.1` is `0x7F00_0001`).
    case v4(UInt32)
    /// An IPv6 address, most significant byte first.
    case v6(UInt128)

    /// Parses an IPv4 address in any `inet_aton` spelling, or an IPv6 address (with or
    /// without brackets, without a zone). `nil` for anything else, such as a host name.
    public init?(parsing text: some StringProtocol) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if text.contains(":") {
            guard let value = Self.parseIPv6(String(text)) else { return nil }
            self = .v6(value)
        } else {
            guard let value = Self.parseIPv4(text) else { return nil }
            self = .v4(value)
        }
    }

    /// The canonical text: dotted quad, or RFC 5952 IPv6 (no brackets).
    public var description: String {
        switch self {
        case .v4(let value):
            return (0..<4).map { String(value >> (24 - 8 * $0) & 0xFF) }.joined(separator: ".")
        case .v6(let value):
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in 0..<16 { bytes[index] = UInt8(truncatingIfNeeded: value >> (120 - 8 * index)) }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let written = bytes.withUnsafeBytes { inet_ntop(AF_INET6, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
            guard written != nil else { return "::" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The IPv4 address an IPv6 address reaches when it carries one: IPv4-mapped
    /// (`::ffff:a.b.c.d`), IPv4-translated (SIIT's `::ffff:0:a.b.c.d`), IPv4-compatible
    /// (`::a.b.c.d`, deprecated but still routed by some stacks), the NAT64 well-known
    /// prefix (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::`, the address in bits 16–47,
    /// reached through a relay) and Teredo (`2001:0::`, the client's address inverted in
    /// the last 32 bits). `nil` otherwise, and for `::` and `::1`, which are IPv6's own
    /// unspecified and loopback addresses.
    public var embeddedIPv4: IPAddress? {
        guard case .v6(let value) = self else { return nil }
        let low = UInt32(truncatingIfNeeded: value)
        switch value >> 32 {
        case 0xFFFF, 0xFFFF_0000, 0x64_FF9B_0000_0000_0000_0000: return .v4(low)
        case 0 where value > 1: return .v4(low)
        default: break
        }
        if value >> 112 == 0x2002 { return .v4(UInt32(truncatingIfNeeded: value >> 80)) }
        if value >> 96 == 0x2001_0000 { return .v4(~low) }
        return nil
    }

    /// `inet_aton`: one to four parts, each decimal, octal (leading `0`) or hex (`0x`); the
    /// last part fills the bytes the others left.
    private static func parseIPv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var value: UInt64 = 0
        for (index, part) in parts.enumerated() {
            guard let number = parseIPv4Part(part) else { return nil }
            if index == parts.count - 1 {
                let remainingBits = UInt64(8 * (4 - index))
                guard number >> remainingBits == 0 else { return nil }
                value |= number
            } else {
                guard number <= 0xFF else { return nil }
                value |= number << UInt64(8 * (3 - index))
            }
        }
        return UInt32(value)
    }

    private static func parseIPv4Part(_ part: Substring) -> UInt64? {
        let lower = part.lowercased()
        // Digits (and the `x` of a hex prefix) only: Swift's integer parsing would also take
        // a sign, which no resolver does.
        guard !lower.isEmpty, lower.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x78 }) else {
            return nil
        }
        if lower.hasPrefix("0x") {
            let digits = lower.dropFirst(2)
            // `inet_aton` reads a bare `0x` as zero.
            return digits.isEmpty ? 0 : UInt64(digits, radix: 16)
        }
        if lower.count > 1, lower.hasPrefix("0") { return UInt64(lower.dropFirst(), radix: 8) }
        return UInt64(lower, radix: 10)
    }

    private static func parseIPv6(_ text: String) -> UInt128? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let parsed = bytes.withUnsafeMutableBytes { inet_pton(AF_INET6, text, $0.baseAddress) }
        guard parsed == 1 else { return nil }
        return bytes.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
    }
}
