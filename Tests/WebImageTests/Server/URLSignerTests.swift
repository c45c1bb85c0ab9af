import Foundation
import Testing
@testable import WebImageServer

/// imgproxy's URL signature: the published test vector, key rotation, truncated
/// signatures, and what makes a signature or a key invalid.
@Suite struct URLSignerTests {
    /// imgproxy's documented example: key "secret", salt "hello".
    static let key = "736563726574"
    static let salt = "68656C6C6F"
    static let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
    static let signature = "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"

    @Test func signsImgproxysPublishedVector() throws {
        let signer = try URLSigner(keys: [Self.key], salts: [Self.salt])
        #expect(signer.signature(for: Self.path) == Self.signature)
        #expect(signer.isValid(signature: Self.signature, for: Self.path))
    }

    @Test func hexMayBeEitherCase() throws {
        let lower = try URLSigner(keys: [Self.key.lowercased()], salts: [Self.salt.lowercased()])
        #expect(lower.signature(for: Self.path) == Self.signature)
        #expect(lower.pairs == [URLSigner.Pair(key: Array("secret".utf8), salt: Array("hello".utf8))])
    }

    @Test func byteInitialiserMatchesTheHexOne() {
        let signer = URLSigner(pairs: [URLSigner.Pair(key: Array("secret".utf8), salt: Array("hello".utf8))])
        #expect(signer.signature(for: Self.path) == Self.signature)
    }

    @Test func anyByteOfTheSignatureOrThePathChangedFailsIt() throws {
        let signer = try URLSigner(keys: [Self.key], salts: [Self.salt])
        var wrong = Array(Self.signature)
        wrong[10] = wrong[10] == "A" ? "B" : "A"
        #expect(!signer.isValid(signature: String(wrong), for: Self.path))
        #expect(!signer.isValid(signature: Self.signature, for: Self.path + "x"))
        #expect(!signer.isValid(signature: Self.signature, for: Self.path.replacingOccurrences(of: "300", with: "301")))
        #expect(!signer.isValid(signature: "", for: Self.path))
        #expect(!signer.isValid(signature: "insecure", for: Self.path))
        #expect(!signer.isValid(signature: String(Self.signature.dropLast(4)), for: Self.path))
        #expect(!signer.isValid(signature: Self.signature + "AAAA", for: Self.path))
        #expect(!signer.isValid(signature: "!!!!", for: Self.path))
        #expect(!signer.isValid(signature: String(repeating: "A", count: 100), for: Self.path))
    }

    @Test func anotherSaltOrKeyGivesAnotherSignature() throws {
        let otherSalt = try URLSigner(keys: [Self.key], salts: ["00"])
        let otherKey = try URLSigner(keys: ["01"], salts: [Self.salt])
        #expect(otherSalt.signature(for: Self.path) != Self.signature)
        #expect(otherKey.signature(for: Self.path) != Self.signature)
        #expect(!otherSalt.isValid(signature: Self.signature, for: Self.path))
        let emptySalt = try URLSigner(keys: [Self.key], salts: [""])
        #expect(emptySalt.signature(for: Self.path) != Self.signature)
    }

    @Test func everyRotatedPairIsAcceptedAndTheFirstSigns() throws {
        let old = try URLSigner(keys: ["0102"], salts: ["0304"])
        let current = try URLSigner(keys: [Self.key], salts: [Self.salt])
        let rotating = try URLSigner(keys: [Self.key, "0102"], salts: [Self.salt, "0304"])
        let oldSignature = try #require(old.signature(for: Self.path))
        #expect(rotating.isValid(signature: oldSignature, for: Self.path))
        #expect(rotating.isValid(signature: Self.signature, for: Self.path))
        #expect(rotating.signature(for: Self.path) == Self.signature)
        #expect(!current.isValid(signature: oldSignature, for: Self.path))
        // A key paired with another pair's salt is not a valid pair.
        let crossed = try URLSigner(keys: ["0102"], salts: [Self.salt])
        let crossedSignature = try #require(crossed.signature(for: Self.path))
        #expect(!rotating.isValid(signature: crossedSignature, for: Self.path))
    }

    @Test(arguments: [1, 8, 16, 31])
    func truncatedSignatureCarriesOnlyItsSize(_ size: Int) throws {
        let signer = try URLSigner(keys: [Self.key], salts: [Self.salt], signatureSize: size)
        let signature = try #require(signer.signature(for: Self.path))
        let full = try #require(URLSigner.bytes(base64URL: Self.signature))
        #expect(URLSigner.bytes(base64URL: signature) == Array(full.prefix(size)))
        #expect(signer.isValid(signature: signature, for: Self.path))
        // The full signature is not the truncated one, and the truncated one does not pass
        // a full-size signer.
        #expect(!signer.isValid(signature: Self.signature, for: Self.path))
        let fullSigner = try URLSigner(keys: [Self.key], salts: [Self.salt])
        #expect(!fullSigner.isValid(signature: signature, for: Self.path))
    }

    @Test func signatureSizeIsClampedTo1Through32() {
        #expect(URLSigner(pairs: [], signatureSize: 0).signatureSize == 1)
        #expect(URLSigner(pairs: [], signatureSize: 64).signatureSize == 32)
        #expect(URLSigner(pairs: []).signatureSize == 32)
    }

    @Test func noPairsSignNothingAndAcceptNothing() {
        let signer = URLSigner(pairs: [])
        #expect(signer.signature(for: Self.path) == nil)
        #expect(!signer.isValid(signature: Self.signature, for: Self.path))
    }

    @Test(arguments: [
        (["73"], ["68", "69"]),
        (["7g"], ["68"]),
        (["736"], ["68"]),
        (["73"], ["6"]),
        ([""], ["68"]),
    ])
    func malformedKeysAreRefused(_ keys: [String], salts: [String]) {
        #expect(throws: ImageServerError.self) { try URLSigner(keys: keys, salts: salts) }
        do {
            _ = try URLSigner(keys: keys, salts: salts)
        } catch {
            #expect(error.status == 400)
            #expect(error.message.contains("salt") || error.message.contains("hex"))
        }
    }

    @Test func base64URLRoundTripsWithoutPadding() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0x00, 0x3E, 0x3F]
        let text = URLSigner.base64URL(bytes)
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
        #expect(URLSigner.bytes(base64URL: text) == bytes)
    }
}
