import Foundation

/// The public suffixes (`co.uk`, `github.io`, ...) under which anyone may register a name,
/// so that a cookie set for one would reach every site under it: RFC 6265 (5.3, step 5)
/// has a user agent refuse a `Domain` attribute that is one, as browsers, curl (libpsl) and
/// URLSession do. Without it, `evil.co.uk` could set a cookie for `co.uk` that the jar then
/// sent to `bank.co.uk`.
///
/// The rules are Mozilla's list as Debian ships it (package `publicsuffix`,
/// `/usr/share/publicsuffix/public_suffix_list.dat`, which `scripts/install-deps.sh`
/// installs), read once on first use. A URL's host reaches the jar in its ASCII (punycode)
/// form, and the list writes internationalised suffixes in Unicode: those rules are kept in
/// their `xn--` form (``Punycode``), and a name asked about in Unicode is converted too.
/// Where the file is missing, only the list's default rule applies (a single label, `com`,
/// is a public suffix), which the cookie parser enforced before this list existed. A value:
/// thread-safe.
struct PublicSuffixList: Sendable {
    /// Where Debian's `publicsuffix` package puts the list.
    static let debianPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// The list read from ``debianPath`` on first use (empty when it is missing).
    static let system = PublicSuffixList(contentsOfFile: debianPath)

    /// `com`, `co.uk`: names that are suffixes themselves.
    private var suffixes: Set<String> = []
    /// `ck` for the rule `*.ck`: every name one label below is a suffix.
    private var wildcardParents: Set<String> = []
    /// `www.ck` for the rule `!www.ck`: an exception to a wildcard.
    private var exceptions: Set<String> = []

    /// The rules of the list at `path`; none (the default rule alone) when it cannot be read.
    /// The file is bounded (the real list is about 250 KB): a larger one is not read.
    init(contentsOfFile path: String) {
        var text = ""
        if let file = FileIO.read(path, limit: 16 << 20) { text = String(decoding: file.data, as: UTF8.self) }
        self.init(listText: text)
    }

    /// The rules in `listText`, in the list's format: one rule per line, `//` comments.
    init(listText: String) {
        for line in listText.split(whereSeparator: \.isNewline) {
            // A rule ends at the first white space; the rest of the line is ignored.
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//"),
                  let name = Punycode.asciiDomain(String(rule)) else { continue }
            if name.hasPrefix("!") {
                exceptions.insert(String(name.dropFirst()))
            } else if name.hasPrefix("*.") {
                wildcardParents.insert(String(name.dropFirst(2)))
            } else {
                suffixes.insert(name)
            }
        }
    }

    /// Whether `domain` (lowercased, no leading dot) is a public suffix: a rule names it, a
    /// wildcard covers it and no exception takes it out, or it is a single label. A final
    /// dot (the root: `co.uk.` is `co.uk`) is not part of the name.
    func isPublicSuffix(_ domain: String) -> Bool {
        var domain = domain.hasSuffix(".") ? String(domain.dropLast()) : domain
        if !domain.unicodeScalars.allSatisfy(\.isASCII) {
            // A name no rule could be written as is no suffix of the list's; the default
            // rule (one label) still applies.
            guard let ascii = Punycode.asciiDomain(domain) else { return !domain.contains(".") }
            domain = ascii
        }
        guard let dot = domain.firstIndex(of: ".") else { return true }
        if exceptions.contains(domain) { return false }
        return suffixes.contains(domain) || wildcardParents.contains(String(domain[domain.index(after: dot)...]))
    }
}
