/// A block of addresses in CIDR notation (`10.1.0.0/16`, `fd00:1::/32`), for
/// `WEBIMAGE_ALLOWED_SOURCE_NETWORKS`.
///
/// ```swift
/// let network = try IPNetwork(parsing: "10.1.0.0/16")
/// network.contains(IPAddress(parsing: "10.1.2.3")!)   // true
/// ```
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block.
    public let address: IPAddress
    /// How many leading bits every address of the block shares with ``address``.
    public let prefixLength: Int

    /// Parses `ADDRESS/LENGTH`, or a bare address (a block of one).
    /// - Throws: ``ImageServerError`` (400) naming the text, for a malformed block or one with
    ///   bits set past its prefix (`10.1.2.3/16`), which is usually a typo.
    public init(parsing text: some StringProtocol) throws(ImageServerError) {
        let pieces = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parsing: pieces[0]) else {
            throw .badOptions("\"\(text)\" is not an IP network (ADDRESS/LENGTH)")
        }
        let bits = address.bitCount
        let length = pieces.count == 2 ? Int(pieces[1]) : bits
        guard let length, (0...bits).contains(length) else {
            throw .badOptions("\"\(text)\" has no prefix length in 0...\(bits)")
        }
        self.address = address
        prefixLength = length
        guard address.bitsAfterPrefix(length) == 0 else {
            throw .badOptions("\"\(text)\" has address bits set past its /\(length)")
        }
    }

    /// Whether `candidate` is in the block (an address of the other family never is).
    public func contains(_ candidate: IPAddress) -> Bool {
        switch (address, candidate) {
        case (.v4(let base), .v4(let value)):
            return prefixLength == 0 || base >> (32 - prefixLength) == value >> (32 - prefixLength)
        case (.v6(let base), .v6(let value)):
            return prefixLength == 0 || base >> (128 - prefixLength) == value >> (128 - prefixLength)
        default:
            return false
        }
    }

    public var description: String { "\(address)/\(prefixLength)" }
}

extension IPAddress {
    /// 32 or 128.
    var bitCount: Int {
        if case .v4 = self { 32 } else { 128 }
    }

    /// The address's bits after the first `length`, as a number (0 for a network's base).
    func bitsAfterPrefix(_ length: Int) -> UInt128 {
        switch self {
        case .v4(let value): length >= 32 ? 0 : UInt128(value & (UInt32.max >> length))
        case .v6(let value): length >= 128 ? 0 : value & (UInt128.max >> length)
        }
    }
}
