import Foundation
import Testing
@testable import WebImage

/// RFC 6265's cookie-date algorithm (section 5.1.1): the spellings servers send, the
/// two-digit years, impossible dates, and the malformed value the `cookie` fuzz target
/// found leaking through `DateFormatter`.
@Suite struct CookieDateTests {
    /// 2015-10-21 07:28:00 UTC.
    static let october21 = Date(timeIntervalSince1970: 1_445_412_480)

    @Test(arguments: [
        "Wed, 21 Oct 2015 07:28:00 GMT",        // RFC 1123
        "Wednesday, 21-Oct-15 07:28:00 GMT",    // RFC 850
        "Wed Oct 21 07:28:00 2015",             // asctime
        "Wed, 21-Oct-2015 07:28:00 GMT",        // dashed, four-digit year
        "21 oct 2015 7:28:0",                   // no weekday, lower case, one-digit fields
        "Wed, 21 October 2015 07:28:00 UTC",    // a month name written out; the zone is ignored
        "2015 Oct 21 07:28:00",                 // any order
        "Wed, 21 Oct 2015 07:28:00 +0200",      // a numeric zone is a token of its own, ignored
    ])
    func spellingsServersSendMeanOneInstant(_ text: String) {
        #expect(CookieDate.parse(text) == Self.october21, "\(text)")
    }

    @Test func twoDigitYearsFollowTheRFC() {
        #expect(CookieDate.parse("1 Jan 70 00:00:00") == Date(timeIntervalSince1970: 0))
        #expect(CookieDate.parse("1 Jan 69 00:00:00") == Date(timeIntervalSince1970: 3_124_224_000))  // 2069
        #expect(CookieDate.parse("1 Jan 0 00:00:00") == nil, "a year needs two digits")
    }

    @Test func leapDaysAndDistantYears() {
        #expect(CookieDate.parse("29 Feb 2024 00:00:00") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(CookieDate.parse("29 Feb 2023 00:00:00") == nil)
        #expect(CookieDate.parse("29 Feb 2000 00:00:00") != nil)
        #expect(CookieDate.parse("29 Feb 2100 00:00:00") == nil)
        #expect(CookieDate.parse("1 Jan 1601 00:00:00") == Date(timeIntervalSince1970: -11_644_473_600))
        #expect(CookieDate.parse("31 Dec 9999 23:59:59") == Date(timeIntervalSince1970: 253_402_300_799))
    }

    @Test(arguments: [
        "", "GMT", "Wed, 21 Oct 2015", "21 Oct 2015 07:28", "21 Foo 2015 07:28:00", "32 Oct 2015 07:28:00",
        "31 Nov 2015 07:28:00", "21 Oct 1600 07:28:00", "21 Oct 2015 24:00:00", "21 Oct 2015 07:60:00",
        "21 Oct 2015 07:28:60", "21 Oct 2015 0a:28:00", "21 Oct 2015 123:28:00", "21 Oct 20155 07:28:00",
        "21 Oct 2015 07::00", "21 Oct 2015 :28:00",
    ])
    func incompleteOrImpossibleDatesAreNil(_ text: String) {
        #expect(CookieDate.parse(text) == nil, "\(text)")
    }

    /// The fuzz finding: a Set-Cookie whose Expires is not a date (bytes over 0x7F among
    /// them). `DateFormatter` leaked on it; now it is read and refused without Foundation's
    /// date machinery, and the cookie is kept as a session cookie.
    @Test func theFuzzFindingIsASessionCookie() throws {
        let bytes = try Data(contentsOf: Corpus.fixtures.appendingPathComponent("fuzz/cookie-expires-dateformatter-leak.txt"))
        let header = String(decoding: bytes, as: UTF8.self)
        #expect(header.contains("Expires="))
        let url = try #require(URL(string: "http://example.com/a"))
        let cookies = header.split(separator: "\n").compactMap { Cookie(setCookie: String($0), from: url, now: Date()) }
        #expect(cookies.allSatisfy { $0.expiresAt == nil })
        let value = String(header.split(separator: "Expires=", maxSplits: 1).last ?? "")
        #expect(CookieDate.parse(value) == nil)
    }
}
