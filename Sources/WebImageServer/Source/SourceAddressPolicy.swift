/// Which addresses the server may connect to for a source: the classes imgproxy lets an
/// operator open (loopback, link-local, private), the networks opened one by one, and
/// nothing else outside the public internet.
///
/// Stricter than imgproxy by default: private networks are closed unless
/// ``allowsPrivate`` (imgproxy opens them), and unspecified, multicast, broadcast, reserved
/// and carrier-grade NAT addresses are closed whatever the class settings say; only
/// ``allowedNetworks`` can open a block inside them.
///
/// ```swift
/// var policy = SourceAddressPolicy()
/// policy.allowedNetworks = [try IPNetwork(parsing: "10.20.0.0/16")]   // the internal CDN
/// policy.permits(IPAddress(parsing: "10.20.1.2")!)                    // true
/// policy.permits(IPAddress(parsing: "10.21.1.2")!)                    // false
/// ```
public struct SourceAddressPolicy: Sendable, Equatable {
    /// `WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES`: connect to this machine (`127.0.0.0/8`,
    /// `::1`). Default `false`.
    public var allowsLoopback = false
    /// `WEBIMAGE_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES`: connect to link-local addresses (cloud
    /// metadata services live at `169.254.169.254`). Default `false`.
    public var allowsLinkLocal = false
    /// `WEBIMAGE_ALLOW_PRIVATE_SOURCE_ADDRESSES`: connect to private networks (`10/8`,
    /// `172.16/12`, `192.168/16`, `fc00::/7`). Default `false` (imgproxy's is `true`).
    public var allowsPrivate = false
    /// `WEBIMAGE_ALLOWED_SOURCE_NETWORKS`: blocks open even inside a closed class, such as
    /// an internal CDN's subnet. Default none.
    public var allowedNetworks: [IPNetwork] = []

    /// Everything but the public internet closed.
    public init() {}

    /// Whether the server may connect to `address`. An IPv6 address carrying an IPv4 one is
    /// judged by the IPv4 address it reaches, and opened by a network holding either form.
    public func permits(_ address: IPAddress) -> Bool {
        let reached = address.embeddedIPv4 ?? address
        if allowedNetworks.contains(where: { $0.contains(address) || $0.contains(reached) }) { return true }
        switch AddressClass(reached) {
        case .public: return true
        case .loopback: return allowsLoopback
        case .linkLocal: return allowsLinkLocal
        case .private: return allowsPrivate
        case .carrierGradeNAT, .unspecified, .multicast, .broadcast, .reserved: return false
        }
    }

    /// The address to connect to for `host`, given everything it resolved to: the first, once
    /// every one of them is permitted. A name with any closed address is refused outright,
    /// as its owner is pointing it inside (choosing another of its addresses would still
    /// serve whoever controls that name's answers).
    /// - Throws: ``ImageServerError/sourceForbidden(_:detail:)``, whose detail (for the log)
    ///   names the host, the address and its class.
    public func checkedAddress(of host: String, among addresses: [IPAddress]) throws(ImageServerError) -> IPAddress {
        if let closed = addresses.first(where: { !permits($0) }) {
            let reached = closed.embeddedIPv4 ?? closed
            throw .sourceForbidden(
                "the source's address is one the server may not fetch from (the server's log says which)",
                detail: "the source host \(host) is at \(closed), a \(AddressClass(reached).rawValue) address"
            )
        }
        guard let first = addresses.first else {
            throw .sourceFailed("the source host could not be resolved", detail: "\(host) has no address")
        }
        return first
    }
}
