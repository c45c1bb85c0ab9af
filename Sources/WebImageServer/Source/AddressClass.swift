/// What kind of network an address belongs to, for deciding whether the server may fetch a
/// source from it.
///
/// A pure function of the address: IPv6 forms that carry an IPv4 address
/// (``IPAddress/embeddedIPv4``) are classified by that IPv4 address, since it is where the
/// connection ends up.
///
/// ```swift
/// AddressClass(IPAddress(parsing: "::ffff:127.0.0.1")!)   // .loopback
/// ```
public enum AddressClass: String, Sendable, CaseIterable {
    /// Anything not below: the internet.
    case `public`
    /// `127.0.0.0/8`, `::1`: this machine.
    case loopback
    /// `169.254.0.0/16` (where cloud metadata services live), `fe80::/10`.
    case linkLocal = "link-local"
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, `fc00::/7`, and the deprecated
    /// site-local `fec0::/10`.
    case `private`
    /// `100.64.0.0/10`, carrier-grade NAT's shared space: a provider's internal network.
    case carrierGradeNAT = "cgnat"
    /// `0.0.0.0/8`, `::`: on Linux a connection to these reaches this machine.
    case unspecified
    /// `224.0.0.0/4`, `ff00::/8`.
    case multicast
    /// `255.255.255.255`.
    case broadcast
    /// `240.0.0.0/4` but broadcast, `192.0.0.0/24` (protocol assignments), `198.18.0.0/15`
    /// (benchmarking), `100::/64` (discard) and `64:ff9b:1::/48` (local-use NAT64, whose
    /// IPv4 address may sit at several places): reserved, never a real origin.
    case reserved

    /// The class of `address`.
    public init(_ address: IPAddress) {
        if let embedded = address.embeddedIPv4 {
            self.init(embedded)
            return
        }
        switch address {
        case .v4(let value): self = Self.classifyIPv4(value)
        case .v6(let value): self = Self.classifyIPv6(value)
        }
    }

    private static func classifyIPv4(_ value: UInt32) -> Self {
        func within(_ base: UInt32, _ length: UInt32) -> Bool { value >> (32 - length) == base >> (32 - length) }
        if value == 0xFFFF_FFFF { return .broadcast }
        if within(0x0000_0000, 8) { return .unspecified }
        if within(0x7F00_0000, 8) { return .loopback }
        if within(0xA9FE_0000, 16) { return .linkLocal }
        if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16) { return .private }
        if within(0x6440_0000, 10) { return .carrierGradeNAT }
        if within(0xE000_0000, 4) { return .multicast }
        if within(0xF000_0000, 4) || within(0xC000_0000, 24) || within(0xC612_0000, 15) { return .reserved }
        return .public
    }

    private static func classifyIPv6(_ value: UInt128) -> Self {
        let top16 = UInt16(truncatingIfNeeded: value >> 112)
        if value == 0 { return .unspecified }
        if value == 1 { return .loopback }
        if top16 & 0xFFC0 == 0xFE80 { return .linkLocal }
        if top16 & 0xFE00 == 0xFC00 || top16 & 0xFFC0 == 0xFEC0 { return .private }
        if top16 & 0xFF00 == 0xFF00 { return .multicast }
        if value >> 64 == 0x0100_0000_0000_0000 || value >> 80 == 0x64_FF9B_0001 { return .reserved }
        return .public
    }
}
