import Foundation
import Testing
@testable import WebImage

/// RFC 6265's storage and matching rules, and the jar's bounds.
@Suite struct CookieJarTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func url(_ text: String) throws -> URL {
        try #require(URL(string: text))
    }

    @Test func parsesNameValueAndAttributes() throws {
        let cookie = try #require(Cookie(
            setCookie: "sid=abc=def; Domain=.Example.com; Path=/img; Secure; HttpOnly; Max-Age=60; SameSite=Lax",
            from: url("https://cdn.example.com/img/a.png"),
            now: now
        ))
        #expect(cookie.name == "sid")
        #expect(cookie.value == "abc=def")
        #expect(cookie.domain == "example.com")
        #expect(!cookie.isHostOnly)
        #expect(cookie.path == "/img")
        #expect(cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.expiresAt == now.addingTimeInterval(60))
    }

    @Test func withoutAttributesTheCookieIsHostOnlyWithTheDefaultPath() throws {
        let cookie = try #require(Cookie(setCookie: "a=1", from: url("http://example.com/photos/2024/cat.jpg"), now: now))
        #expect(cookie.isHostOnly)
        #expect(cookie.domain == "example.com")
        #expect(cookie.path == "/photos/2024")
        #expect(cookie.expiresAt == nil)
        #expect(try Cookie(setCookie: "a=1", from: url("http://example.com/cat.jpg"), now: now)?.path == "/")
    }

    /// RFC 6265bis ignores an attribute value over 1,024 bytes, so a stored cookie stays a
    /// few kilobytes however long the header a server sends.
    @Test func anAttributeValueOver1024BytesIsIgnored() throws {
        let long = "/" + String(repeating: "p", count: 1_024)
        let ignored = try #require(Cookie(setCookie: "a=1; Path=\(long)", from: url("http://example.com/photos/cat.jpg"), now: now))
        #expect(ignored.path == "/photos")
        let kept = try #require(Cookie(setCookie: "a=1; Path=\(long.dropLast())", from: url("http://example.com/photos/cat.jpg"), now: now))
        #expect(kept.path == String(long.dropLast()))
    }

    @Test func maxAgeWinsOverExpiresWhateverTheOrder() throws {
        let header = "a=1; Max-Age=10; Expires=Wed, 21 Oct 2015 07:28:00 GMT"
        let cookie = try #require(Cookie(setCookie: header, from: url("http://example.com/"), now: now))
        #expect(cookie.expiresAt == now.addingTimeInterval(10))
        let expires = try #require(Cookie(setCookie: "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", from: url("http://example.com/"), now: now))
        #expect(expires.expiresAt == Date(timeIntervalSince1970: 1_445_412_480))
        let dashed = try #require(Cookie(setCookie: "a=1; expires=Wednesday, 21-Oct-15 07:28:00 GMT", from: url("http://example.com/"), now: now))
        #expect(dashed.expiresAt == Date(timeIntervalSince1970: 1_445_412_480))
    }

    @Test func headersAUserAgentMustIgnoreAreRejected() throws {
        let site = try url("http://img.example.com/a.png")
        #expect(Cookie(setCookie: "=nameless", from: site) == nil)
        #expect(Cookie(setCookie: "no-equals-sign", from: site) == nil)
        #expect(Cookie(setCookie: "a=1; Domain=other.com", from: site) == nil)
        #expect(Cookie(setCookie: "a=1; Domain=com", from: site) == nil)
        #expect(Cookie(setCookie: "a=1; Domain=ample.com", from: site) == nil)
        #expect(Cookie(setCookie: "a=" + String(repeating: "x", count: 5000), from: site) == nil)
        #expect(Cookie(setCookie: "a=1\r\nX-Injected: yes", from: site) == nil)
        #expect(Cookie(setCookie: "a=1\u{7F}", from: site) == nil)
        // Stricter than RFC 6265bis: C1 controls and Unicode line separators, which some
        // readers take as line ends (NEL, U+2028, U+2029), void the cookie too.
        for refused in ["\u{80}", "\u{85}", "\u{9F}", "\u{2028}", "\u{2029}"] {
            #expect(Cookie(setCookie: "a=1" + refused + "2", from: site) == nil, "\(refused.unicodeScalars.first?.value ?? 0)")
        }
        #expect(Cookie(setCookie: "a=caf\u{E9}\u{A0}\u{2027}", from: site) != nil, "other non-ASCII text is kept")
        #expect(Cookie(setCookie: "a=1;\tPath=/", from: site) != nil)
        #expect(Cookie(setCookie: "a=1; Domain=example.com", from: site) != nil)
    }

    /// A `Domain` that is a public suffix is refused (RFC 6265 5.3, step 5): a cookie that
    /// `evil.co.uk` set for `co.uk` was kept and sent to every site under it.
    @Test func aDomainThatIsAPublicSuffixIsRefused() throws {
        let list = PublicSuffixList(listText: """
            // comment line
            com
            co.uk
            *.ck
            !www.ck
            github.io  trailing words are ignored
            公司.cn
            """)
        func cookie(_ header: String, from address: String) throws -> Cookie? {
            Cookie(setCookie: header, from: try url(address), publicSuffixes: list)
        }
        #expect(try cookie("a=1; Domain=co.uk", from: "http://evil.co.uk/") == nil)
        #expect(try cookie("a=1; Domain=.CO.UK", from: "http://evil.co.uk/") == nil)
        #expect(try cookie("a=1; Domain=co.uk.", from: "http://evil.co.uk./") == nil, "the root's dot")
        #expect(try cookie("a=1; Domain=github.io", from: "http://someone.github.io/") == nil)
        #expect(try cookie("a=1; Domain=foo.ck", from: "http://a.foo.ck/") == nil, "the wildcard *.ck")
        #expect(try cookie("a=1; Domain=www.ck", from: "http://a.www.ck/")?.domain == "www.ck", "the exception !www.ck")
        #expect(try cookie("a=1; Domain=example.co.uk", from: "http://img.example.co.uk/")?.isHostOnly == false)
        // The suffix as the host itself: the cookie is kept for that host alone.
        let own = try cookie("a=1; Domain=github.io", from: "http://github.io/")
        #expect(own?.isHostOnly == true)
        #expect(own?.domain == "github.io")
        #expect(list.isPublicSuffix("localhost"), "a single label, the list's default rule")
        #expect(!list.isPublicSuffix("example.com"))
        // A rule the list writes in Unicode matches the host's punycode form, and the name
        // asked about may be in either form.
        #expect(list.isPublicSuffix("xn--55qx5d.cn"))
        #expect(list.isPublicSuffix("公司.cn"))
        #expect(!list.isPublicSuffix("shop.xn--55qx5d.cn"))
        #expect(try cookie("a=1; Domain=xn--55qx5d.cn", from: "http://shop.xn--55qx5d.cn/") == nil)
        #expect(try cookie("a=1; Domain=shop.xn--55qx5d.cn", from: "http://img.shop.xn--55qx5d.cn/")?.isHostOnly == false)
    }

    /// RFC 3492's own samples (7.1), and two everyday names.
    @Test func punycodeEncodesAsTheRFCsSamples() {
        func scalars(_ values: [UInt32]) -> String {
            String(String.UnicodeScalarView(values.compactMap(Unicode.Scalar.init)))
        }
        let arabic = scalars([0x644, 0x64A, 0x647, 0x645, 0x627, 0x628, 0x62A, 0x643, 0x644, 0x645, 0x648, 0x634, 0x639, 0x631, 0x628, 0x64A, 0x61F])
        #expect(Punycode.encode(arabic) == "egbpdaj6bu4bxfgehfvwxn")
        let chinese = scalars([0x4ED6, 0x4EEC, 0x4E3A, 0x4EC0, 0x4E48, 0x4E0D, 0x8BF4, 0x4E2D, 0x6587])
        #expect(Punycode.encode(chinese) == "ihqwcrb4cv8a8dqg056pqjye")
        let mixed = scalars([0x33, 0x5E74, 0x42, 0x7D44, 0x91D1, 0x516B, 0x5148, 0x751F])
        #expect(Punycode.encode(mixed) == "3B-ww4c5e180e575a65lsy2b", "basic code points kept, in their case")
        #expect(Punycode.asciiDomain("Bücher.example") == "xn--bcher-kva.example")
        #expect(Punycode.asciiDomain("münchen.de") == "xn--mnchen-3ya.de")
        #expect(Punycode.asciiDomain("example.com") == "example.com")
    }

    /// The list the jar uses is Debian's, installed by scripts/install-deps.sh.
    @Test func theSystemListIsDebians() throws {
        #expect(FileManager.default.fileExists(atPath: PublicSuffixList.debianPath))
        for suffix in ["com", "co.uk", "github.io", "s3.amazonaws.com"] {
            #expect(PublicSuffixList.system.isPublicSuffix(suffix), "\(suffix)")
        }
        #expect(!PublicSuffixList.system.isPublicSuffix("example.co.uk"))
        #expect(PublicSuffixList.system.isPublicSuffix("xn--55qx5d.cn"), "公司.cn, written in Unicode in the list")
        #expect(Cookie(setCookie: "a=1; Domain=co.uk", from: try url("http://evil.co.uk/")) == nil)
    }

    @Test func sendsOnlyMatchingDomainPathAndScheme() throws {
        let jar = CookieJar()
        jar.setCookies(fromHeaders: [
            "host=1",
            "wide=2; Domain=example.com",
            "deep=3; Path=/img/thumbs",
            "safe=4; Secure",
        ], for: try url("https://example.com/a.png"), now: now)
        #expect(jar.cookieHeader(for: try url("https://example.com/img/thumbs/x.png"), now: now) == "deep=3; host=1; wide=2; safe=4")
        #expect(jar.cookieHeader(for: try url("http://example.com/"), now: now) == "host=1; wide=2")
        #expect(jar.cookieHeader(for: try url("http://cdn.example.com/"), now: now) == "wide=2")
        #expect(jar.cookieHeader(for: try url("http://example.com/img/thumbsup"), now: now) == "host=1; wide=2")
        #expect(jar.cookieHeader(for: try url("http://notexample.com/"), now: now) == nil)
    }

    /// A review's finding: a response over plain http could set `Secure` cookies and
    /// overwrite the one later https requests send (RFC 6265bis 5.7, which curl follows).
    @Test func plainHTTPLeavesSecureCookiesAlone() throws {
        let jar = CookieJar()
        let secure = try url("https://example.com/"), plain = try url("http://example.com/")
        jar.setCookies(fromHeaders: ["session=good; Secure"], for: secure, now: now)
        jar.setCookies(fromHeaders: ["session=evil", "session=evil2; Path=/img", "other=1; Secure", "plain=1"], for: plain, now: now)
        #expect(jar.cookieHeader(for: secure, now: now) == "session=good; plain=1")
        #expect(jar.cookieHeader(for: try url("https://example.com/img/x.png"), now: now) == "session=good; plain=1")
        #expect(jar.cookieHeader(for: plain, now: now) == "plain=1")
        // Over https, the secure cookie is replaced as any cookie is.
        jar.setCookies(fromHeaders: ["session=new; Secure"], for: secure, now: now)
        #expect(jar.cookieHeader(for: secure, now: now) == "session=new; plain=1")
    }

    @Test func aLaterCookieReplacesAndAPastExpiryDeletes() throws {
        let jar = CookieJar()
        let site = try url("http://example.com/")
        jar.setCookies(fromHeaders: ["a=1"], for: site, now: now)
        jar.setCookies(fromHeaders: ["a=2"], for: site, now: now)
        #expect(jar.cookieHeader(for: site, now: now) == "a=2")
        jar.setCookies(fromHeaders: ["a=gone; Max-Age=0"], for: site, now: now)
        #expect(jar.cookieHeader(for: site, now: now) == nil)
        #expect(jar.cookies(now: now).isEmpty)
    }

    @Test func expiredCookiesAreNotSent() throws {
        let jar = CookieJar()
        let site = try url("http://example.com/")
        jar.setCookies(fromHeaders: ["a=1; Max-Age=5"], for: site, now: now)
        #expect(jar.cookieHeader(for: site, now: now.addingTimeInterval(4)) == "a=1")
        #expect(jar.cookieHeader(for: site, now: now.addingTimeInterval(6)) == nil)
    }

    @Test func ipAddressesMatchOnlyThemselves() throws {
        let jar = CookieJar()
        jar.setCookies(fromHeaders: ["a=1"], for: try url("http://127.0.0.1:8080/"), now: now)
        #expect(jar.cookieHeader(for: try url("http://127.0.0.1:9090/x.png"), now: now) == "a=1")
        #expect(!Cookie.domain("10.0.0.1", matches: "0.0.1"))
        #expect(Cookie.isIPAddress("127.0.0.1"))
        #expect(Cookie.isIPAddress("::1"))
        #expect(!Cookie.isIPAddress("example.com"))
    }

    @Test func theJarStaysWithinItsLimitsDroppingTheLeastRecentlyUsed() throws {
        var limits = CookieJar.Limits()
        limits.cookiesPerDomain = 3
        limits.totalCookies = 5
        let jar = CookieJar(limits: limits)
        let site = try url("http://a.example/")
        for index in 0..<3 { jar.setCookies(fromHeaders: ["c\(index)=\(index)"], for: site, now: now) }
        // Setting c0 again makes it recent, so c1 is the one to go when a fourth arrives.
        jar.set(Cookie(name: "c0", value: "0", domain: "a.example"), now: now)
        jar.setCookies(fromHeaders: ["c3=3"], for: site, now: now)
        #expect(Set(jar.cookies(now: now).map(\.name)) == ["c0", "c2", "c3"])
        for index in 0..<10 {
            jar.setCookies(fromHeaders: ["d=\(index)"], for: try url("http://host\(index).example/"), now: now)
        }
        #expect(jar.cookies(now: now).count == 5)
        #expect(jar.cookies(now: now).contains { $0.domain == "host9.example" })
    }

    /// The fuzz finding (cookie target): a value holding NEL (U+0085, bytes C2 85) was
    /// stored, and the jar wrote it into its `Cookie` header, where Swift's `isNewline`
    /// (and some log readers) see a line break. Now the cookie is refused and the jar
    /// writes nothing.
    @Test func theFuzzFindingWithANextLineIsRefused() throws {
        let bytes = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("fuzz/cookie-nel-line-break.txt"))
        let header = String(decoding: bytes, as: UTF8.self)
        #expect(header.unicodeScalars.contains("\u{85}"))
        let site = try url("https://img.example.com/a/b.png")
        #expect(Cookie(setCookie: header, from: site, now: now) == nil)
        let jar = CookieJar()
        jar.setCookies(fromHeaders: [header], for: site, now: now)
        #expect(jar.cookieHeader(for: site, now: now) == nil)
    }
}
