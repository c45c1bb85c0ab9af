import Testing
@testable import WebImageServer

/// Which addresses the source-address policy opens: the class settings, the networks opened
/// one by one, the addresses carried in IPv6, and the choice among a host's addresses. Pure:
/// no connection is made.
@Suite struct SourceAddressPolicyTests {
    static func address(_ text: String) throws -> IPAddress {
        try #require(IPAddress(parsing: text))
    }

    @Test func defaultOpensOnlyThePublicInternet() throws {
        let policy = SourceAddressPolicy()
        for open in ["8.8.8.8", "2606:4700::1111", "::ffff:1.1.1.1"] {
            #expect(policy.permits(try Self.address(open)), "\(open)")
        }
        for closed in ["127.0.0.1", "::1", "169.254.169.254", "fe80::1", "10.0.0.1", "192.168.0.1", "fd00::1",
                       "100.64.0.1", "0.0.0.0", "::", "224.0.0.1", "ff02::1", "255.255.255.255", "240.0.0.1"] {
            #expect(!policy.permits(try Self.address(closed)), "\(closed)")
        }
    }

    @Test func eachClassSettingOpensItsClassOnly() throws {
        var policy = SourceAddressPolicy()
        policy.allowsLoopback = true
        #expect(policy.permits(try Self.address("127.0.0.2")))
        #expect(policy.permits(try Self.address("::ffff:127.0.0.1")))
        #expect(!policy.permits(try Self.address("0.0.0.0")), "unspecified is not loopback")
        #expect(!policy.permits(try Self.address("10.0.0.1")))
        policy = SourceAddressPolicy()
        policy.allowsLinkLocal = true
        #expect(policy.permits(try Self.address("169.254.169.254")))
        #expect(policy.permits(try Self.address("fe80::1")))
        #expect(!policy.permits(try Self.address("127.0.0.1")))
        policy = SourceAddressPolicy()
        policy.allowsPrivate = true
        #expect(policy.permits(try Self.address("172.20.1.1")))
        #expect(policy.permits(try Self.address("fd00::1")))
        #expect(!policy.permits(try Self.address("100.64.0.1")), "carrier-grade NAT is not a private class")
        #expect(!policy.permits(try Self.address("169.254.1.1")))
    }

    @Test func anAllowedNetworkOpensItsBlockAndNothingElseOfTheClass() throws {
        var policy = SourceAddressPolicy()
        policy.allowedNetworks = [try IPNetwork(parsing: "10.20.0.0/16"), try IPNetwork(parsing: "127.0.0.1/32")]
        #expect(policy.permits(try Self.address("10.20.1.2")))
        #expect(policy.permits(try Self.address("::ffff:10.20.1.2")))
        #expect(!policy.permits(try Self.address("10.21.1.2")))
        #expect(policy.permits(try Self.address("127.0.0.1")))
        #expect(policy.permits(try Self.address("2130706433")))
        #expect(!policy.permits(try Self.address("127.0.0.2")))
        #expect(!policy.permits(try Self.address("::1")))
    }

    @Test func networksCanOpenBlocksOfTheAlwaysClosedClasses() throws {
        var policy = SourceAddressPolicy()
        policy.allowedNetworks = [try IPNetwork(parsing: "100.64.0.0/10"), try IPNetwork(parsing: "fd00:1::/32")]
        #expect(policy.permits(try Self.address("100.100.1.1")))
        #expect(policy.permits(try Self.address("fd00:1:2::3")))
        #expect(!policy.permits(try Self.address("fd00:2::3")))
    }

    @Test func aHostWithAnyClosedAddressIsRefusedWhole() throws {
        let policy = SourceAddressPolicy()
        let mixed = [try Self.address("8.8.8.8"), try Self.address("127.0.0.1")]
        #expect(throws: ImageServerError.self) { try policy.checkedAddress(of: "rebind.example", among: mixed) }
        do {
            _ = try policy.checkedAddress(of: "rebind.example", among: mixed)
        } catch {
            #expect(error.status == 404 && error.label == "source_forbidden")
            // The client is told the rule; the log is told where the name led.
            #expect(!error.message.contains("rebind.example") && !error.message.contains("127.0.0.1") && !error.message.contains("loopback"))
            #expect(error.detail?.contains("rebind.example") == true && error.detail?.contains("loopback") == true)
        }
        let open = [try Self.address("8.8.4.4"), try Self.address("8.8.8.8")]
        #expect(try policy.checkedAddress(of: "dns.example", among: open) == Self.address("8.8.4.4"))
        #expect(throws: ImageServerError.sourceFailed("the source host could not be resolved", detail: "none.example has no address")) {
            try policy.checkedAddress(of: "none.example", among: [])
        }
    }

    @Test(arguments: [("10.0.0.0/8", "10.0.0.0/8"), ("::1", "::1/128"), ("1.2.3.4", "1.2.3.4/32"), ("0.0.0.0/0", "0.0.0.0/0"),
                      ("FD00::/8", "fd00::/8"), ("127.1/32", "127.0.0.1/32")])
    func networkParsesToItsCanonicalBlock(_ text: String, _ canonical: String) throws {
        #expect(try IPNetwork(parsing: text).description == canonical)
    }

    @Test(arguments: ["10.1.2.3/16", "1.2.3.4/33", "::/129", "fd00::1/8", "10.0.0.0/", "10.0.0.0/x", "example.com/8", "", "/8"])
    func malformedNetworkIsA400(_ text: String) {
        #expect(throws: ImageServerError.self) { try IPNetwork(parsing: text) }
    }

    @Test func zeroLengthNetworkHoldsItsWholeFamilyOnly() throws {
        let everyIPv4 = try IPNetwork(parsing: "0.0.0.0/0")
        #expect(everyIPv4.contains(try Self.address("255.1.2.3")))
        #expect(!everyIPv4.contains(try Self.address("::1")))
    }
}
