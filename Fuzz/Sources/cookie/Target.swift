import FuzzSupport
import Foundation
import WebImage

/// The `Set-Cookie` parser and the jar that stores its cookies: the input's first line is
/// the URL the header came from (a fixed https URL when it does not parse as one), the
/// rest is the header value.
///
/// Checked, as `Cookie.init(setCookie:from:)` documents: a parsed cookie has a name, no
/// control character (C0 but tab, DEL, C1) or Unicode line separator, at most `4096`
/// bytes of name and value, a path starting with `/`, and a domain that covers the URL's
/// host. The character set is written out here rather than taken from the parser, so the
/// check does not share the parser's mistakes. Stored in a jar, the `Cookie` header the jar
/// then writes for the URL has no line break (a header injection).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: Fuzz.data(start, count), as: UTF8.self)
    let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let header = lines.count > 1 ? String(lines[1]) : text
    let url = lines.count > 1 ? URL(string: String(lines[0])) ?? fallback : fallback
    let now = Date(timeIntervalSince1970: 1_750_000_000)
    if let cookie = Cookie(setCookie: header, from: url, now: now) {
        let isControl: (Unicode.Scalar) -> Bool = {
            ($0.value < 0x20 && $0 != "\t") || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029
        }
        Fuzz.check(!cookie.name.isEmpty, "a cookie without a name from \(header.debugDescription)")
        Fuzz.check(!(cookie.name + cookie.value).unicodeScalars.contains(where: isControl), "a control character in \(cookie)")
        Fuzz.check(cookie.name.utf8.count + cookie.value.utf8.count <= 4096, "an oversized cookie from \(header.count) characters")
        Fuzz.check(cookie.path.hasPrefix("/"), "cookie path \(cookie.path.debugDescription)")
        if let host = url.host?.lowercased() {
            Fuzz.check(host == cookie.domain || host.hasSuffix("." + cookie.domain), "domain \(cookie.domain) does not cover \(host)")
        }
    }
    let jar = CookieJar()
    jar.setCookies(fromHeaders: [header], for: url, now: now)
    if let written = jar.cookieHeader(for: url, now: now) {
        Fuzz.check(!written.contains(where: \.isNewline), "a line break in the Cookie header \(written.debugDescription)")
    }
    return 0
}

private let fallback = URL(string: "https://img.example.com/a/b.png") ?? URL(fileURLWithPath: "/")
