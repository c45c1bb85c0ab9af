import Foundation
import Testing
@testable import WebImage

/// `URL.hasUsablePort`: Foundation takes any run of digits as a port, and the HTTP client
/// traps on one past 65,535, so every URL is held to 1...65535 before it is used.
@Suite struct URLUsablePortTests {
    @Test(arguments: [
        "http://a.example/x", "http://a.example:80/x", "https://a.example:65535/x", "http://a.example:1",
        "http://a.example:/x", "http://user:pa:ss@a.example/x", "http://[::1]:8080/x", "http://[::1]/x",
        "http://a.example/x?q=:70000#:99999",
    ])
    func portsAConnectionCanUseAreUsable(_ text: String) throws {
        #expect(try #require(URL(string: text)).hasUsablePort)
    }

    @Test(arguments: [
        "http://a.example:65536/x", "http://1.1.1.1:70000/", "http://a.example:0/x",
        "http://a.example:99999999999999999999/x", "http://u@a.example:123456789012345678901/", "http://[::1]:65536/x",
    ])
    func portsOutOfRangeAreNot(_ text: String) throws {
        #expect(try !#require(URL(string: text)).hasUsablePort)
    }
}
