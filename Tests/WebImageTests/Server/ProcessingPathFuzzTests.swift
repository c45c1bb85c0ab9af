import Foundation
import Testing
@testable import WebImageServer

/// Fuzzing the URL parser and the signature check, as the server runs them before any I/O:
/// the signature, the path and its options, the result limits, and the source's URL policy.
/// Every generated path must end in a parse or a 4xx ``ImageServerError`` with a one-line
/// reason: no crash, no hang, no 5xx, no multi-line body.
///
/// `make test` runs ``defaultCount`` paths; `make fuzz` runs a million
/// (`WEBIMAGE_FUZZ_PATHS` sets the count, `WEBIMAGE_FUZZ_SEED` the seed).
@Suite struct ProcessingPathFuzzTests {
    static let defaultCount = 50_000

    /// What the server answers before fetching: `nil` when the path would be fetched.
    static func answer(
        _ path: String, signer: URLSigner, processor: ImageProcessor, allowList: [SourcePattern]
    ) -> ImageServerError? {
        do throws(ImageServerError) {
            let (signature, signedPart) = try ProcessingPath.signatureAndSignedPart(of: path)
            guard signer.isValid(signature: signature, for: signedPart) else {
                throw .badSignature("the signature does not match the URL")
            }
            let parsed = try ProcessingPath(parsing: path)
            try processor.validate(parsed.options)
            let location = try NormalizedSourceURL(parsed.source)
            guard allowList.contains(where: { $0.matches(location) }) else {
                throw .sourceForbidden("not allowed")
            }
            return nil
        } catch {
            return error
        }
    }

    /// What the fuzzer first found: reasons quote the request, whose characters can be
    /// anything once percent-decoded.
    @Test func reasonQuotingLineBreaksStaysOneLine() throws {
        let error = ImageServerError.badOptions("unknown resizing type \"\rforce\u{2028}\n\u{0}\"")
        #expect(error.message == "unknown resizing type \"\\u{D}force\\u{2028}\\u{A}\\u{0}\"")
        for path in ["/insecure/plain/http%3A%2F%2Fa%0A.example%0D/x.png", "/insecure/rt:\nforce/plain/http://a.example/x.png"] {
            let refusal = #expect(throws: ImageServerError.self) { try ProcessingPath(parsing: path) }
            #expect(refusal?.message.contains { $0.isNewline } == false, "\(String(describing: refusal))")
        }
    }

    @Test func everyGeneratedPathIsParsedOrRefusedWithAOneLine4xx() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["WEBIMAGE_FUZZ_PATHS"].flatMap { Int($0) } ?? Self.defaultCount
        let seed = environment["WEBIMAGE_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0x5EED_0013
        let signer = URLSigner(pairs: [URLSigner.Pair(key: Array("secret".utf8), salt: Array("hello".utf8))])
        let processor = ImageProcessor(configuration: ImageProcessor.Configuration())
        let allowList = [try SourcePattern(parsing: "http://img.example/"), try SourcePattern(parsing: "https://*.example:*/p/")]
        var fuzzer = PathFuzzer(seed: seed, signer: signer)
        var parsed = 0
        var refusals: [String: Int] = [:]
        let start = ContinuousClock.now
        for index in 0..<count {
            let path = fuzzer.next()
            guard let error = Self.answer(path, signer: signer, processor: processor, allowList: allowList) else {
                parsed += 1
                continue
            }
            refusals[error.label, default: 0] += 1
            let oneLine = !error.message.isEmpty && !error.message.contains(where: \.isNewline)
            guard (400..<500).contains(error.status), oneLine else {
                Issue.record("path \(index) (seed \(seed)) \(path.debugDescription) answered \(error.status) \(error.message.debugDescription)")
                return
            }
        }
        let elapsed = ContinuousClock.now - start
        print("fuzz: \(count) paths in \(elapsed): \(parsed) parsed, refused \(refusals.sorted { $0.key < $1.key })")
        // The generator reaches past the signature into the parser and the source policy,
        // and leaves some paths valid: a fuzzer that only ever hit one check would prove little.
        #expect(parsed > 0)
        #expect(refusals["signature", default: 0] > 0)
        #expect(refusals["options", default: 0] > 0)
        #expect(refusals["source_forbidden", default: 0] > 0)
    }
}
