import Foundation

extension Downloader.ProxySettings {
    /// The hosts that are reached directly, never through the proxy: curl's `no_proxy` list,
    /// matched exactly as curl (7.86 and later) matches it.
    ///
    /// The list is comma-separated (blanks around an entry are ignored; an entry ends at a
    /// blank, and the list at the first blank not followed by a comma, as in curl). An
    /// entry matches:
    /// - a host name: the name itself or any name ending in `.` + the entry, ignoring case,
    ///   a leading dot in the entry and a trailing dot in either (`example.com` and
    ///   `.example.com` both match `example.com` and `img.example.com`, not `myexample.com`);
    /// - an IP address written in the URL (IPv4, or IPv6 without brackets): the same address,
    ///   or with `/bits` every address in that CIDR range (`10.0.0.0/8`, `fd00::/8`).
    ///   Names are never resolved, so `localhost` does not match `127.0.0.1` nor the reverse.
    ///
    /// The whole list being exactly `*` matches every host.
    ///
    /// ```swift
    /// let bypass = Downloader.ProxySettings.Bypass("localhost,.internal,10.0.0.0/8")
    /// bypass.matches(host: "img.internal")  // true
    /// ```
    public struct Bypass: Sendable, Hashable {
        /// Nothing bypasses the proxy.
        public static let none = Bypass("")
        /// Every host bypasses the proxy (`*`).
        public static let all = Bypass("*")

        /// The list as given.
        public let list: String
        private let entries: [String]

        /// Parses a `no_proxy` list.
        public init(_ list: String) {
            self.list = list
            entries = list == "*" ? [] : Self.entries(of: list)
        }

        /// The list of the environment's `no_proxy`, or `NO_PROXY` when that is unset or
        /// empty (curl's order); ``none`` when both are.
        public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bypass {
            let value = [environment["no_proxy"], environment["NO_PROXY"]].lazy.compactMap { $0 }.first { !$0.isEmpty }
            return value.map(Bypass.init) ?? .none
        }

        /// Whether a URL with this host goes directly. `host` may be an IPv6 address in
        /// brackets, as in a URL.
        public func matches(host: String) -> Bool {
            guard !host.isEmpty else { return false }
            if list == "*" { return true }
            if host.hasPrefix("[") {
                guard let end = host.firstIndex(of: "]") else { return false }
                guard let address = IPAddressBytes(String(host[host.index(after: host.startIndex)..<end])) else { return false }
                return entries.contains { Self.address(address, matches: $0) }
            }
            if let address = IPAddressBytes(host) {
                return entries.contains { Self.address(address, matches: $0) }
            }
            let name = host.hasSuffix(".") ? String(host.dropLast()).lowercased() : host.lowercased()
            return entries.contains { Self.name(name, matches: $0) }
        }

        /// The entries of `list`, scanned as curl scans it.
        private static func entries(of list: String) -> [String] {
            var entries: [String] = []
            var rest = Substring(list)
            let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            while !rest.isEmpty {
                rest = rest.drop(while: isBlank)
                let entry = rest.prefix { !isBlank($0) && $0 != "," }
                if !entry.isEmpty { entries.append(String(entry)) }
                rest = rest.dropFirst(entry.count).drop(while: isBlank)
                guard rest.first == "," else { break }
                rest = rest.drop { $0 == "," }
            }
            return entries
        }

        private static func name(_ name: String, matches entry: String) -> Bool {
            var pattern = Substring(entry.lowercased())
            if pattern.hasSuffix(".") { pattern = pattern.dropLast() }
            if pattern.hasPrefix(".") { pattern = pattern.dropFirst() }
            guard !pattern.isEmpty else { return false }
            return name == pattern || name.hasSuffix("." + pattern)
        }

        private static func address(_ address: IPAddressBytes, matches entry: String) -> Bool {
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let network = IPAddressBytes(String(parts[0])), network.bytes.count == address.bytes.count else { return false }
            let width = address.bytes.count * 8
            var bits = width
            if parts.count == 2 {
                // curl reads the bits with atoi: no digits is 0, which means the whole address,
                // and a negative or too large count matches nothing.
                let digits = parts[1].prefix { $0 >= "0" && $0 <= "9" }
                let value = digits.isEmpty ? 0 : Int(digits.prefix(9)) ?? Int.max
                guard parts[1].first != "-", value <= width else { return false }
                bits = value == 0 ? width : value
            }
            return address.hasPrefix(bits, of: network)
        }
    }
}

/// The bytes of an IPv4 or IPv6 address written as text, to compare CIDR prefixes.
private struct IPAddressBytes: Equatable {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    let bytes: [UInt8]

    /// `nil` unless `text` is an IPv4 address in dotted-quad form or an IPv6 address
    /// without brackets.
    init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        bytes = withUnsafeBytes(of: &v6) { Array($0) }
    }

    /// Whether the first `bits` bits equal those of `network` (of the same family).
    func hasPrefix(_ bits: Int, of network: IPAddressBytes) -> Bool {
        let whole = bits / 8
        guard bytes.prefix(whole) == network.bytes.prefix(whole) else { return false }
        let rest = bits % 8
        guard rest > 0 else { return true }
        let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - rest))
        return bytes[whole] & mask == network.bytes[whole] & mask
    }
}
