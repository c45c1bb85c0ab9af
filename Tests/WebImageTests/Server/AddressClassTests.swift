import Testing
@testable import WebImageServer

/// The source-address classifier as a pure function: a table of spellings, every range the
/// server treats specially in both families, the numeric IPv4 forms resolvers accept, and the
/// IPv6 forms that carry an IPv4 address. No connection is made.
@Suite struct AddressClassTests {
    /// Spelling → the class of the address it reaches.
    static let table: [(String, AddressClass)] = [
        // Loopback, however spelled.
        ("127.0.0.1", .loopback), ("127.255.255.254", .loopback), ("127.1", .loopback), ("127.0.1", .loopback),
        ("2130706433", .loopback), ("0x7f.1", .loopback), ("0x7F.0.0.1", .loopback), ("0x7f000001", .loopback),
        ("0177.0.0.1", .loopback), ("0177.1", .loopback), ("017700000001", .loopback), ("127.0.0.0x1", .loopback),
        ("::1", .loopback), ("[::1]", .loopback), ("0:0:0:0:0:0:0:1", .loopback),
        ("::ffff:127.0.0.1", .loopback), ("[::ffff:127.0.0.1]", .loopback), ("::ffff:7f00:1", .loopback),
        ("::127.0.0.1", .loopback), ("64:ff9b::127.0.0.1", .loopback), ("64:ff9b::7f00:1", .loopback),
        // Unspecified: on Linux these reach this machine.
        ("0.0.0.0", .unspecified), ("0", .unspecified), ("0x0", .unspecified), ("0.1.2.3", .unspecified),
        ("::", .unspecified), ("0:0:0:0:0:0:0:0", .unspecified), ("::ffff:0.0.0.0", .unspecified), ("::0.0.0.2", .unspecified),
        // Link-local, where cloud metadata lives.
        ("169.254.169.254", .linkLocal), ("169.254.0.1", .linkLocal), ("2852039166", .linkLocal), ("0xa9fea9fe", .linkLocal),
        ("0251.0376.0251.0376", .linkLocal), ("fe80::1", .linkLocal), ("febf:ffff::1", .linkLocal),
        ("::ffff:169.254.169.254", .linkLocal), ("::ffff:a9fe:a9fe", .linkLocal),
        // Private networks.
        ("10.0.0.1", .private), ("10.255.255.255", .private), ("012.0.0.1", .private), ("167772161", .private),
        ("172.16.0.1", .private), ("172.31.255.255", .private), ("192.168.1.1", .private), ("0xc0a80101", .private),
        ("192.168.257", .private), ("fc00::1", .private), ("fd12:3456::1", .private), ("fec0::1", .private),
        ("::ffff:10.0.0.1", .private), ("::ffff:192.168.0.1", .private), ("::172.16.0.1", .private),
        // Carrier-grade NAT.
        ("100.64.0.1", .carrierGradeNAT), ("100.127.255.255", .carrierGradeNAT), ("::ffff:100.64.0.1", .carrierGradeNAT),
        // Multicast.
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("ff02::1", .multicast), ("ff0e::fb", .multicast),
        ("::ffff:224.0.0.251", .multicast),
        // Broadcast and reserved.
        ("255.255.255.255", .broadcast), ("0xffffffff", .broadcast), ("4294967295", .broadcast),
        ("::ffff:255.255.255.255", .broadcast), ("240.0.0.1", .reserved), ("255.255.255.254", .reserved),
        ("192.0.0.170", .reserved), ("198.18.0.1", .reserved), ("198.19.255.255", .reserved), ("100::1", .reserved),
        ("64:ff9b:1::7f00:1", .reserved),
        // IPv6 forms that carry an IPv4 address elsewhere: SIIT, 6to4, Teredo (client inverted).
        ("::ffff:0:7f00:1", .loopback), ("::ffff:0:10.0.0.1", .private), ("2002:7f00:1::", .loopback),
        ("2002:a9fe:a9fe::1", .linkLocal), ("2002:808:808::1", .public), ("2001:0:4136:e378:8000:63bf:80ff:fffe", .loopback),
        ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", .public),
        // The public internet, including the addresses next to each closed range.
        ("8.8.8.8", .public), ("1.1.1.1", .public), ("172.15.255.255", .public), ("172.32.0.0", .public),
        ("192.169.0.1", .public), ("192.167.255.255", .public), ("100.63.255.255", .public), ("100.128.0.0", .public),
        ("169.253.255.255", .public), ("169.255.0.0", .public), ("9.255.255.255", .public), ("11.0.0.0", .public),
        ("126.255.255.255", .public), ("128.0.0.0", .public), ("223.255.255.255", .public), ("1.1", .public),
        ("2001:4860:4860::8888", .public), ("2606:4700::1111", .public), ("fbff::1", .public), ("2001:db8::1", .public),
        ("::ffff:8.8.8.8", .public), ("64:ff9b::808:808", .public), ("1.0.0.0", .public), ("198.17.255.255", .public),
        ("198.20.0.0", .public), ("192.0.1.0", .public), ("101::1", .public), ("2003::1", .public),
    ]

    @Test func tableHasAtLeastSixtySpellings() {
        #expect(Self.table.count >= 60)
    }

    @Test(arguments: table)
    func spellingIsClassifiedByTheAddressItReaches(_ spelling: String, _ expected: AddressClass) throws {
        let address = try #require(IPAddress(parsing: spelling), "\(spelling) should parse")
        #expect(AddressClass(address) == expected, "\(spelling) is \(address)")
    }

    /// What is not an address stays a host name (and is resolved, then classified).
    @Test(arguments: [
        "localhost", "example.com", "127.0.0.1.5", "256.0.0.1", "1.256.0.1", "127.16777216", "4294967296",
        "0x1g", "1.2.3.+4", "+1.2.3.4", "-1", "08.0.0.1", "127.0.0.1.", ".127.0.0.1", "1..1", "", "::g",
        "1:2:3:4:5:6:7:8:9", "fe80::1%eth0", "[::1", "12345678901234567890",
    ])
    func nonAddressIsNotParsed(_ text: String) {
        #expect(IPAddress(parsing: text) == nil)
    }

    @Test func bareHexPrefixIsZeroAsInetAton() {
        #expect(IPAddress(parsing: "0x") == .v4(0))
    }

    @Test(arguments: [
        ("2130706433", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"), ("192.168.257", "192.168.1.1"),
        ("0:0:0:0:0:0:0:1", "::1"), ("[::ffff:7f00:1]", "::ffff:127.0.0.1"), ("FE80:0::1", "fe80::1"),
    ])
    func canonicalTextIsTheUsualSpelling(_ spelling: String, _ canonical: String) throws {
        #expect(try #require(IPAddress(parsing: spelling)).description == canonical)
    }

    @Test func embeddedIPv4IsOnlyForTheFormsThatCarryOne() throws {
        #expect(try #require(IPAddress(parsing: "::ffff:10.0.0.1")).embeddedIPv4 == IPAddress(parsing: "10.0.0.1"))
        #expect(try #require(IPAddress(parsing: "::10.0.0.1")).embeddedIPv4 == IPAddress(parsing: "10.0.0.1"))
        #expect(try #require(IPAddress(parsing: "64:ff9b::10.0.0.1")).embeddedIPv4 == IPAddress(parsing: "10.0.0.1"))
        #expect(try #require(IPAddress(parsing: "::1")).embeddedIPv4 == nil)
        #expect(try #require(IPAddress(parsing: "::")).embeddedIPv4 == nil)
        #expect(try #require(IPAddress(parsing: "2001:db8::10.0.0.1")).embeddedIPv4 == nil)
        #expect(try #require(IPAddress(parsing: "10.0.0.1")).embeddedIPv4 == nil)
    }
}
