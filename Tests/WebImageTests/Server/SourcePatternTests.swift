import Foundation
import Testing
@testable import WebImageServer

/// `WEBIMAGE_ALLOWED_SOURCES`: entries matched on the parsed, normalised URL, never as a
/// prefix of its text. Pure: nothing is fetched.
@Suite struct SourcePatternTests {
    /// Whether `pattern` admits `url`; a URL the server would not fetch admits nothing.
    static func admits(_ pattern: String, _ url: String) throws -> Bool {
        let entry = try SourcePattern(parsing: pattern)
        guard let parsed = URL(string: url), let location = try? NormalizedSourceURL(parsed) else { return false }
        return entry.matches(location)
    }

    @Test(arguments: [
        "http://allowed.example@evil.example/a.png",
        "http://allowed.example.evil.example/a.png",
        "http://allowed.example:8080/a.png",
        "https://allowed.example/a.png",
        "http://evil.example/allowed.example/a.png",
        "http://evil.example/?http://allowed.example/",
        "http://evil.example%00.allowed.example/a.png",
        "http://evil.example%2F.allowed.example/a.png",
        "http://allowed.examplex/a.png",
        "http://xallowed.example/a.png",
    ])
    func lookalikesOfAnAllowedHostAreRefused(_ url: String) throws {
        #expect(try !Self.admits("http://allowed.example", url))
        #expect(try !Self.admits("http://allowed.example/", url))
    }

    @Test(arguments: [
        "http://allowed.example/a.png", "http://allowed.example", "HTTP://Allowed.Example/a.png",
        "http://allowed.example./a.png", "http://allowed.example:80/a.png", "http://user:pw@allowed.example/a.png",
    ])
    func spellingsOfTheAllowedHostAreAdmitted(_ url: String) throws {
        #expect(try Self.admits("http://allowed.example", url))
    }

    @Test func hostWildcardMatchesAnySubdomainButNotTheBareDomainOrAnotherOne() throws {
        let pattern = "https://*.cdn.example/images/"
        #expect(try Self.admits(pattern, "https://eu.cdn.example/images/a.png"))
        #expect(try Self.admits(pattern, "https://a.b.cdn.example/images/x/y.png"))
        #expect(try !Self.admits(pattern, "https://cdn.example/images/a.png"))
        #expect(try !Self.admits(pattern, "https://eu.cdn.example.evil/images/a.png"))
        #expect(try !Self.admits(pattern, "https://evil.example/x.cdn.example/images/a.png"))
        #expect(try !Self.admits(pattern, "https://eu.cdn.example/other/images/a.png"))
        #expect(try !Self.admits(pattern, "https://eu.cdn.example/images"))
    }

    @Test func pathWildcardStaysWithinOneSegment() throws {
        let pattern = "http://h.example/u/*/img/"
        #expect(try Self.admits(pattern, "http://h.example/u/42/img/a.png"))
        #expect(try !Self.admits(pattern, "http://h.example/u/4/2/img/a.png"))
        #expect(try !Self.admits(pattern, "http://h.example/u/42/other/a.png"))
    }

    @Test func portMustMatchUnlessItIsAWildcard() throws {
        #expect(try Self.admits("http://127.0.0.1:*/", "http://127.0.0.1:9/a"))
        #expect(try Self.admits("http://h.example:8080/", "http://h.example:8080/a"))
        #expect(try !Self.admits("http://h.example:8080/", "http://h.example:8081/a"))
        #expect(try !Self.admits("http://h.example:8080/", "http://h.example/a"))
        #expect(try Self.admits("https://h.example/", "https://h.example:443/a"))
    }

    @Test func numericHostsMatchByTheAddressTheyReach() throws {
        #expect(try Self.admits("http://127.0.0.1:*/", "http://2130706433:9/a"))
        #expect(try Self.admits("http://127.0.0.1:*/", "http://0x7f.1:9/a"))
        #expect(try Self.admits("http://[::1]:8080/", "http://[0:0::1]:8080/x"))
        #expect(try !Self.admits("http://[::1]:8080/", "http://[::2]:8080/x"))
    }

    @Test func wildcardsDoNotBacktrackOnLongHostileURLs() throws {
        let entry = try SourcePattern(parsing: "http://h.example/*a*a*a*a*a*a*a*a*b/")
        let path = "/" + String(repeating: "a", count: 20_000)
        let location = try NormalizedSourceURL(try #require(URL(string: "http://h.example" + path)))
        let start = ContinuousClock.now
        #expect(!entry.matches(location))
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test(arguments: [
        "ftp://h.example/", "file:///etc/", "data:image/png", "h.example", "http://", "http://:80/",
        "http://a@h.example/", "http://h.example:0/", "http://h.example:x/", "http://[::1/", "http://[::1]x/",
    ])
    func malformedEntryIsA400(_ text: String) {
        #expect(throws: ImageServerError.self) { try SourcePattern(parsing: text) }
    }

    /// A `.` or `..` segment, spelled in any way an origin that resolves it reads it, would
    /// climb out of the folder a pattern names: refused (400), whatever the pattern.
    @Test(arguments: [
        "/public/../private/x.png", "/public/%2e%2e/private/x.png", "/public/%2E%2e/private/x.png",
        "/public/.%2e/private/x.png", "/public/..%2fprivate/x.png", "/public/..%5Cprivate/x.png",
        "/public/..;/private/x.png", "/public/./x.png", "/public/%2e/x.png", "/public/x/..",
        // Encoded twice or more, for an origin that decodes again (a review's finding).
        "/public/%252e%252e/private/x.png", "/public/%25252E%25252e/private/x.png",
        "/public/..%252fprivate/x.png", "/public/%252e/x.png",
    ])
    func dotSegmentsAreRefused(_ path: String) throws {
        #expect(NormalizedSourceURL.hasDotSegment(path))
        let url = try #require(URL(string: "http://h.example" + path))
        #expect(throws: ImageServerError.self) { try NormalizedSourceURL(url) }
        #expect(try !Self.admits("http://h.example/public/", "http://h.example" + path))
    }

    /// A port no connection can use is refused as the source's own fault (a 400): the HTTP
    /// client trapped on `:70000`, and twenty digits read as no port meant port 80.
    @Test(arguments: ["http://h.example:65536/x.png", "http://1.1.1.1:70000/x.png", "http://h.example:0/x.png", "http://h.example:99999999999999999999/x.png"])
    func portsOutOfRangeAreRefused(_ text: String) throws {
        let url = try #require(URL(string: text))
        let error = #expect(throws: ImageServerError.self) { try NormalizedSourceURL(url) }
        #expect(error?.message.contains("port") == true, "\(String(describing: error))")
        #expect(try NormalizedSourceURL(#require(URL(string: "http://h.example:65535/x.png"))).port == 65_535)
    }

    /// Dots that are not a whole segment are a name like any other.
    @Test(arguments: [
        "/a..b/x.png", "/.../x.png", "/.hidden/x.png", "/x/%2e%2ex.png", "/x..png", "/%2525e%2525e/x.png", "/a%zz/x.png", "/x.png%",
        "/100%25.png", "/a%2520b.png", "/x/%252e%252ex.png",
    ])
    func dotsInsideANameAreKept(_ path: String) throws {
        #expect(!NormalizedSourceURL.hasDotSegment(path))
    }

    /// A path still percent-encoded after the layers looked through is refused as if it had
    /// a dot segment (no image URL is encoded five times over); four layers are looked
    /// through.
    @Test func aPathEncodedPastTheLayersLookedThroughIsRefused() {
        let layers = NormalizedSourceURL.maximumEncodingLayers
        let name = { (percents: Int) in "/x/%" + String(repeating: "25", count: percents) + "41.png" }
        #expect(!NormalizedSourceURL.hasDotSegment(name(layers - 1)))
        #expect(NormalizedSourceURL.hasDotSegment(name(layers)))
        // Long runs of `%25` are refused without peeling each.
        let longRunIsRefused = NormalizedSourceURL.hasDotSegment(name(5_000))
        #expect(longRunIsRefused)
    }

    @Test func locationIsNormalised() throws {
        let location = try NormalizedSourceURL(try #require(URL(string: "HTTP://Images.Example.:80/a%20b.png?x=1")))
        #expect(location.normalized == "http://images.example:80/a%20b.png?x=1")
        let numeric = try NormalizedSourceURL(try #require(URL(string: "https://0177.0.0.1/")))
        #expect(numeric.normalized == "https://127.0.0.1:443/")
    }

    /// A host the resolver would read differently from the allow-list: a decoded NUL (a C
    /// string ends there), a slash, a space.
    @Test(arguments: ["http://evil.example%00.allowed.example/", "http://evil.example%2F.allowed.example/", "http://a%20b.example/",
                      "http://a%0A.example/", "http://a%40b.example/"])
    func hostWithCharactersNoHostHasIsA400(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(throws: ImageServerError.self) { try NormalizedSourceURL(url) }
        #expect(try !Self.admits("http://*.allowed.example", text))
    }

    @Test func internationalisedAndIPv6HostsArePlausible() {
        #expect(NormalizedSourceURL.isPlausibleHost("bücher.example"))
        #expect(NormalizedSourceURL.isPlausibleHost("[::ffff:127.0.0.1]"))
        #expect(NormalizedSourceURL.isPlausibleHost("[2001:db8::1]"))
        #expect(NormalizedSourceURL.isPlausibleHost("2001:db8::1"))
        // Brackets and colons only around an IPv6 address: the HTTP client trims a lone
        // bracket, and would look up another name than the one checked.
        for odd in ["[evil.example", "evil.example]", "[evil.example]", "a:b.example", "[::1]]", "[[::1]]", "[]", "[1.2.3.4]"] {
            #expect(!NormalizedSourceURL.isPlausibleHost(odd), "\(odd)")
        }
        #expect(NormalizedSourceURL.isPlausibleHost("xn--bcher-kva.example"))
        #expect(!NormalizedSourceURL.isPlausibleHost("a\u{0}b"))
        #expect(!NormalizedSourceURL.isPlausibleHost("a\u{202E}b"))
    }

    @Test(arguments: ["file:///etc/passwd", "data:image/png;base64,AAAA", "ftp://h.example/a.png", "gopher://h.example/"])
    func onlyHTTPLocationsExist(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(throws: ImageServerError.self) { try NormalizedSourceURL(url) }
    }
}
