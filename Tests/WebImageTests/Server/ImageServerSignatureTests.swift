import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// A signed server: correct signatures pass (with either rotated key, and truncated when
/// the server says so); wrong, truncated, missing or `insecure` ones get a 403 before the
/// origin is asked anything.
@Suite struct ImageServerSignatureTests {
    static let key = "736563726574"
    static let salt = "68656C6C6F"
    static let oldKey = "0a0b0c0d"
    static let oldSalt = "01"

    static func signed(_ change: (inout ImageServer.Configuration) -> Void = { _ in }) -> ImageServer.Configuration {
        .testing {
            $0.allowsUnsigned = false
            $0.keys = [key]
            $0.salts = [salt]
            change(&$0)
        }
    }

    static func routes() throws -> [String: LoopbackServer.Reply] {
        ["/a.png": .ok(try ServerImages.quadrantsPNG(width: 40, height: 20), contentType: "image/png")]
    }

    /// `WEBIMAGE_SECRET`: only the exact `Bearer <secret>` passes (compared as digests, in
    /// constant time; a prefix, an extension or another scheme do not).
    @Test func secretHeaderMustBeExactlyTheBearerToken() {
        #expect(URLSigner.authorizes("Bearer s3cret", secret: "s3cret"))
        for wrong in [nil, "", "Bearer", "Bearer ", "Bearer s3cre", "Bearer s3cret ", "Bearer s3crex", "bearer s3cret", "Basic s3cret", "s3cret"] {
            #expect(!URLSigner.authorizes(wrong, secret: "s3cret"), "\(wrong ?? "nil")")
        }
    }

    @Test func correctSignaturePassesAndEveryWrongOneIsA403() async throws {
        let signer = try URLSigner(keys: [Self.key], salts: [Self.salt])
        try await RunningImageServer.with(origin: try Self.routes(), Self.signed()) { origin, server in
            let part = ImageURL.signedPlainPart(origin.url("/a.png"), ["rs:fit:20:20"], extension: "png")
            let signature = try #require(signer.signature(for: part))
            let good = try await server.request("/" + signature + part)
            #expect(good.status == 200, "\(good.text)")
            #expect(try CodersManager.shared.decode(good.body).size == ImageSize(width: 20, height: 10))

            var flipped = Array(signature)
            flipped[5] = flipped[5] == "A" ? "B" : "A"
            let wrong = [
                "/" + String(flipped) + part,                                   // one character changed
                "/" + String(signature.prefix(11)) + part,                      // truncated
                "/insecure" + part,                                             // the unsigned placeholder
                "/_" + part,
                "/" + signature + part.replacingOccurrences(of: "20:20", with: "21:20"),  // another URL
                "/" + signature + part.replacingOccurrences(of: "@png", with: "@jpg"),
            ]
            for path in wrong {
                let reply = try await server.request(path)
                #expect(reply.status == 403, "\(path): \(reply.status)")
                #expect(reply.header("Cache-Control") == "no-cache")
                #expect(reply.text == "the signature does not match the URL\n")
            }
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test func signatureIsCheckedBeforeTheOptions() async throws {
        // imgproxy's published example, signed with its key and salt: the signature passes
        // and the options are read (g:sm, smart crop, is not supported here: a 400). The
        // same URL with a wrong signature is a 403 that says nothing about the options.
        let target = "/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        try await RunningImageServer.with(Self.signed()) { server in
            let signed = try await server.request(target)
            #expect(signed.status == 400)
            #expect(signed.text.contains("sm"))
            let forged = try await server.request(target.replacingOccurrences(of: "/oKfUtW34", with: "/AAAAAAAA"))
            #expect(forged.status == 403)
            #expect(forged.text == "the signature does not match the URL\n")
            let unknownOption = try await server.request("/insecure/nonsense:1/plain/http%3A%2F%2F127.0.0.1%2Fa.png")
            #expect(unknownOption.status == 403)
            #expect(!unknownOption.text.contains("nonsense"))
        }
    }

    @Test func missingSignatureSegmentIsA403() async throws {
        try await RunningImageServer.with(Self.signed()) { server in
            let reply = try await server.request("/nothing-after-this")
            #expect(reply.status == 403)
            #expect(reply.text == "the URL has no signature segment\n")
        }
    }

    @Test func base64URLsAreSignedToo() async throws {
        let signer = try URLSigner(keys: [Self.key], salts: [Self.salt])
        try await RunningImageServer.with(origin: try Self.routes(), Self.signed()) { origin, server in
            let unsigned = ImageURL.base64(origin.url("/a.png"), ["w:10"], extension: "webp", signature: "x")
            let part = String(unsigned.dropFirst(2))
            let signature = try #require(signer.signature(for: part))
            let reply = try await server.request("/" + signature + part)
            #expect(reply.status == 200)
            #expect(ImageFormat(sniffing: reply.body) == .webp)
            #expect(try await server.request(unsigned).status == 403)
        }
    }

    @Test func eitherRotatedKeyIsAccepted() async throws {
        let configuration = Self.signed {
            $0.keys = [Self.key, Self.oldKey]
            $0.salts = [Self.salt, Self.oldSalt]
        }
        let current = try URLSigner(keys: [Self.key], salts: [Self.salt])
        let old = try URLSigner(keys: [Self.oldKey], salts: [Self.oldSalt])
        let unknown = try URLSigner(keys: ["ffff"], salts: [Self.salt])
        try await RunningImageServer.with(origin: try Self.routes(), configuration) { origin, server in
            let part = ImageURL.signedPlainPart(origin.url("/a.png"), ["w:10"])
            for signer in [current, old] {
                let signature = try #require(signer.signature(for: part))
                #expect(try await server.request("/" + signature + part).status == 200)
            }
            let foreign = try #require(unknown.signature(for: part))
            #expect(try await server.request("/" + foreign + part).status == 403)
        }
    }

    @Test func truncatedSignaturesWorkWithSignatureSize() async throws {
        let configuration = Self.signed { $0.signatureSize = 8 }
        let short = try URLSigner(keys: [Self.key], salts: [Self.salt], signatureSize: 8)
        let full = try URLSigner(keys: [Self.key], salts: [Self.salt])
        try await RunningImageServer.with(origin: try Self.routes(), configuration) { origin, server in
            let part = ImageURL.signedPlainPart(origin.url("/a.png"), ["w:10"])
            let signature = try #require(short.signature(for: part))
            #expect(signature.count == 11)
            #expect(try await server.request("/" + signature + part).status == 200)
            // The full 32-byte signature is not what this server checks.
            let long = try #require(full.signature(for: part))
            #expect(long.hasPrefix(String(signature.prefix(10))))
            #expect(try await server.request("/" + long + part).status == 403)
            #expect(try await server.request("/" + String(signature.prefix(6)) + part).status == 403)
        }
    }

    @Test func unsignedServerServesAnySignatureSegment() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing()) { origin, server async throws in
            for signature in ["insecure", "_", "anything", "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"] {
                #expect(try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:10"], signature: signature)).status == 200)
            }
        }
    }
}
