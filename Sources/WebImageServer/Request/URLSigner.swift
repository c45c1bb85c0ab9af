import Crypto
import Foundation
import WebImage

/// imgproxy's URL signature: base64url (no padding) of HMAC-SHA256(key, salt + path).
///
/// Several key/salt pairs may be configured so keys can be rotated: a signature made with
/// any of them passes. With ``signatureSize`` below 32 only that many leading bytes of the
/// digest are compared (imgproxy's `SIGNATURE_SIZE`). Comparison takes the same time
/// wherever the first wrong byte is. Immutable and thread-safe.
///
/// ```swift
/// let signer = try URLSigner(keys: ["736563726574"], salts: ["68656C6C6F"])
/// signer.signature(for: "/rs:fit:300:300/plain/http%3A%2F%2Fa.test%2Fb.jpg")
/// ```
public struct URLSigner: Sendable {
    /// One key and its salt, as bytes.
    public struct Pair: Sendable, Equatable {
        public var key: [UInt8]
        public var salt: [UInt8]

        public init(key: [UInt8], salt: [UInt8]) {
            self.key = key
            self.salt = salt
        }
    }

    /// The pairs a signature may be made with; the first one signs.
    public let pairs: [Pair]
    /// How many leading bytes of the digest a signature carries, 1...32; default 32.
    public let signatureSize: Int

    /// Creates a signer from byte pairs.
    public init(pairs: [Pair], signatureSize: Int = 32) {
        self.pairs = pairs
        self.signatureSize = min(32, max(1, signatureSize))
    }

    /// Creates a signer from hex-encoded keys and salts, paired in order (imgproxy's
    /// `KEY`/`SALT`, comma-separated lists for rotation).
    /// - Throws: ``ImageServerError`` when a value is not hex or the counts differ.
    public init(keys: [String], salts: [String], signatureSize: Int = 32) throws(ImageServerError) {
        guard keys.count == salts.count else {
            throw .badOptions("\(keys.count) signing keys but \(salts.count) salts: they are paired in order")
        }
        var pairs: [Pair] = []
        for (key, salt) in zip(keys, salts) {
            guard let keyBytes = Self.bytes(hex: key), let saltBytes = Self.bytes(hex: salt), !keyBytes.isEmpty else {
                throw .badOptions("signing keys and salts must be hex-encoded (and a key non-empty)")
            }
            pairs.append(Pair(key: keyBytes, salt: saltBytes))
        }
        self.init(pairs: pairs, signatureSize: signatureSize)
    }

    /// The signature of `path` (everything after the signature segment, leading `/`
    /// included) with the first pair; `nil` with no pairs.
    public func signature(for path: some StringProtocol) -> String? {
        pairs.first.map { Self.base64URL(digest(path, with: $0).prefix(signatureSize)) }
    }

    /// Whether `signature` signs `path` with any of the pairs.
    public func isValid(signature: some StringProtocol, for path: some StringProtocol) -> Bool {
        guard let given = Self.bytes(base64URL: signature), given.count == signatureSize else { return false }
        var anyMatch = false
        for pair in pairs {
            // Every pair is checked, so the time does not tell an attacker which was closest.
            let matches = Self.equalInConstantTime(digest(path, with: pair).prefix(signatureSize), given)
            anyMatch = anyMatch || matches
        }
        return anyMatch
    }

    /// Whether an `Authorization` header value is `Bearer <secret>` (imgproxy's
    /// `IMGPROXY_SECRET`). SHA-256 digests of both are compared in constant time, so the time
    /// tells a guesser nothing: not how much of a guess was right, nor the secret's length.
    public static func authorizes(_ authorization: String?, secret: String) -> Bool {
        let given = SHA256.hash(data: Array((authorization ?? "").utf8))
        let expected = SHA256.hash(data: Array("Bearer \(secret)".utf8))
        return equalInConstantTime(given, expected)
    }

    /// Whether two byte sequences of the same length are equal, comparing every byte
    /// whatever the first difference, so the time does not tell which byte differed.
    private static func equalInConstantTime(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Bool {
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    private func digest(_ path: some StringProtocol, with pair: Pair) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: pair.key))
        hmac.update(data: pair.salt)
        hmac.update(data: Array(path.utf8))
        return Array(hmac.finalize())
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = digits[index].hexDigitValue, let low = digits[index + 1].hexDigitValue else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    static func bytes(base64URL text: some StringProtocol) -> [UInt8]? {
        guard text.count <= 64 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}
