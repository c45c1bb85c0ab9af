import Foundation
@testable import WebImageServer

/// A seeded generator of imgproxy paths for fuzzing the URL parser and the signature check:
/// each path starts valid (random options, a plain or base64 source, often a valid
/// signature) and then takes a few mutations: huge and odd numbers, unknown and malformed
/// options, broken base64, percent-encoding junk, empty segments, Unicode and control
/// characters, truncated or odd signatures, and random cuts and splices.
///
/// The same seed gives the same paths on every run, so a failure names a reproducible path.
///
/// ```swift
/// var fuzzer = PathFuzzer(seed: 42, signer: signer)
/// let path = fuzzer.next()
/// ```
struct PathFuzzer {
    private var random: SplitMix64
    private let signer: URLSigner

    init(seed: UInt64, signer: URLSigner) {
        random = SplitMix64(seed: seed)
        self.signer = signer
    }

    static let options = [
        "w:%", "h:%", "rs:fit:%:%", "rs:fill:%:%:1", "s:%:%", "rt:fill", "rt:force", "rt:auto", "el:1", "ex:1",
        "g:noea", "g:fp:0.%:0.%", "g:ce", "q:%", "f:png", "f:jpg", "bg:ffffff", "bg:%:%:%", "bl:%", "rot:90",
        "rot:%", "dpr:%", "cb:%", "sm:1", "ar:0", "pg:%", "mb:%", "width:%", "height:%", "quality:%", "format:webp",
    ]
    static let numbers = [
        "0", "1", "7", "100", "4096", "8193", "65535", "2147483647", "2147483648", "9223372036854775807",
        "9223372036854775808", "99999999999999999999999999", "-1", "-0", "+5", "1.5", "1e309", "NaN", "inf", "0x10",
        "", " ", "١٢", "1_000",
    ]
    static let junk = [
        "%", "%z", "%zz", "%0", "%00", "%0A", "%0D%0A", "%C3%28", "%FF", "%25", "%2F", "%2f%2F", "%E2%80%AE",
        "\n", "\r", "\t", "\u{0}", " ", "é", "😀", "\u{202E}", "\u{FEFF}", "\u{FFFF}", "//", "/", ":", "::", "@", "@@",
        "=", "==", "+", "-", "_", ".", "..", "../", "?", "#", "&", "\\", "\"", "'", "<", ">", "plain", "enc", "insecure",
    ]
    static let sources = [
        "http://img.example/a.png", "https://img.example:8443/p/q.jpg?x=1&y=2", "http://127.0.0.1:8080/a.png",
        "http://[::1]:80/b.webp", "http://2130706433/a.png", "http://user:pw@img.example/a.png", "https://img.example/a%20b.png",
        "file:///etc/passwd", "local:///a.png", "local:///../etc/passwd", "data:image/png;base64,AAAA", "ftp://img.example/a.png",
        "http:///a.png", "img.example/a.png",
    ]

    private mutating func pick<T>(_ values: [T]) -> T {
        values[Int.random(in: 0..<values.count, using: &random)]
    }

    private mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &random) < percent
    }

    /// The next path.
    mutating func next() -> String {
        var signed = validSignedPart()
        for _ in 0..<Int.random(in: 0...3, using: &random) { signed = mutate(signed) }
        return "/" + signature(for: signed) + signed
    }

    /// `/OPTIONS/plain/URL@ext` or `/OPTIONS/BASE64.ext`, valid.
    private mutating func validSignedPart() -> String {
        var options: [String] = []
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            var option = pick(Self.options)
            while let hole = option.range(of: "%") { option.replaceSubrange(hole, with: pick(Array(Self.numbers.prefix(6)))) }
            options.append(option)
        }
        let source = pick(Self.sources)
        let prefix = options.map { "/" + $0 }.joined()
        if chance(50) {
            let encoded = source.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? source
            return prefix + "/plain/" + (chance(50) ? encoded : source) + (chance(30) ? "@" + pick(["png", "webp", "jpg", "xyz", ""]) : "")
        }
        var base64 = URLSigner.base64URL(Array(source.utf8))
        var pieces: [String] = []
        while !base64.isEmpty {
            let length = Int.random(in: 1...24, using: &random)
            pieces.append(String(base64.prefix(length)))
            base64 = String(base64.dropFirst(length))
        }
        return prefix + "/" + pieces.joined(separator: "/") + (chance(30) ? "." + pick(["png", "avif", "gif", "nope", ""]) : "")
    }

    /// A valid signature for `signed` most of the time (so mutations reach the parser), else
    /// a broken one.
    private mutating func signature(for signed: String) -> String {
        let valid = signer.signature(for: signed) ?? "insecure"
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<6: return valid
        case 6: return String(valid.dropLast(Int.random(in: 1...valid.count, using: &random)))
        case 7: return valid + pick(["A", "==", "%3D", "é", "AAAA"])
        case 8: return pick(["insecure", "", "_", "-", "AAAA", String(repeating: "A", count: 200), "%00", "😀"])
        default: return mutateCharacters(valid)
        }
    }

    private mutating func mutate(_ path: String) -> String {
        switch Int.random(in: 0..<8, using: &random) {
        case 0:
            // A number replaced by an odd one.
            var result = path
            if let digit = result.firstIndex(where: \.isNumber) { result.replaceSubrange(digit...digit, with: pick(Self.numbers)) }
            return result
        case 1:
            // An unknown or malformed option in front.
            let option = pick(["zz:1", "w", "w:", ":", "::", "w:1:2:3:4:5", "rs", "rs:::", "g:fp:", "bg:zz", "q:" + pick(Self.numbers)])
            return "/" + option + path
        case 2:
            return mutateCharacters(path)
        case 3:
            // Junk inserted at a random place.
            return insert(pick(Self.junk), into: path)
        case 4:
            // A cut.
            return String(path.prefix(Int.random(in: 0...path.count, using: &random)))
        case 5:
            // Empty segments.
            return insert("/", into: insert("/", into: path))
        case 6:
            // A long run of one thing.
            return insert(String(repeating: pick(["a", "/", "%", "9", "w:1/", "é"]), count: Int.random(in: 1...3_000, using: &random)), into: path)
        default:
            // Segments shuffled.
            var segments = path.split(separator: "/", omittingEmptySubsequences: false)
            segments.shuffle(using: &random)
            return segments.joined(separator: "/")
        }
    }

    private mutating func insert(_ text: String, into path: String) -> String {
        var characters = Array(path)
        characters.insert(contentsOf: text, at: Int.random(in: 0...characters.count, using: &random))
        return String(characters)
    }

    /// One character deleted, duplicated or replaced by a random scalar.
    private mutating func mutateCharacters(_ text: String) -> String {
        var characters = Array(text)
        guard !characters.isEmpty else { return pick(Self.junk) }
        let index = Int.random(in: 0..<characters.count, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: characters.remove(at: index)
        case 1: characters.insert(characters[index], at: index)
        default:
            let scalar = Unicode.Scalar(UInt32.random(in: 0...0x2FFF, using: &random)) ?? "?"
            characters[index] = Character(scalar)
        }
        return String(characters)
    }
}
