import FuzzSupport
import Foundation
import WebImage
import WebImageServer

/// The image server's request checks, in the order it runs them before any I/O (as
/// `ProcessingPathFuzzTests.answer` does): the signature segment, the HMAC check, the
/// imgproxy path grammar, the processor's result limits and the source allow-list. The
/// input is the request target as text.
///
/// Checked: every refusal is a 4xx `ImageServerError` with a non-empty one-line reason
/// (it becomes the response body and a log line). The signer round-trips: the part a
/// path signs, signed and put back in front, is split off again unchanged and accepted,
/// and then answers exactly as an unsigned server would.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let target = String(decoding: Fuzz.data(start, count), as: UTF8.self)
    let answered = answer(target, checkingSignature: true)
    checkRefusal(answered, target)

    guard let (_, signedPart) = try? ProcessingPath.signatureAndSignedPart(of: target),
          let signature = signer.signature(for: signedPart)
    else { return 0 }
    let signedTarget = "/" + signature + signedPart
    let split = try? ProcessingPath.signatureAndSignedPart(of: signedTarget)
    Fuzz.check(split?.signature == Substring(signature) && split?.signedPart == signedPart, "the signed path does not split back")
    Fuzz.check(signer.isValid(signature: signature, for: signedPart), "a fresh signature is refused")
    let signedAnswer = answer(signedTarget, checkingSignature: true)
    let unsignedAnswer = answer(signedTarget, checkingSignature: false)
    checkRefusal(signedAnswer, signedTarget)
    Fuzz.check(signedAnswer == unsignedAnswer, "signed \(String(describing: signedAnswer)) but unsigned \(String(describing: unsignedAnswer))")
    return 0
}

private func checkRefusal(_ error: ImageServerError?, _ target: String) {
    guard let error else { return }
    Fuzz.check((400..<500).contains(error.status), "\(target.debugDescription) answered \(error.status)")
    Fuzz.check(!error.message.isEmpty && !error.message.contains(where: \.isNewline),
               "\(target.debugDescription) answered \(error.message.debugDescription)")
}

/// What the server answers before fetching: `nil` when it would fetch the source.
private func answer(_ target: String, checkingSignature: Bool) -> ImageServerError? {
    do throws(ImageServerError) {
        let (signature, signedPart) = try ProcessingPath.signatureAndSignedPart(of: target)
        if checkingSignature, !signer.isValid(signature: signature, for: signedPart) {
            throw .badSignature("the signature does not match the URL")
        }
        let parsed = try ProcessingPath(parsing: target)
        try processor.validate(parsed.options)
        let location = try NormalizedSourceURL(parsed.source)
        guard allowList.contains(where: { $0.matches(location) }) else { throw .sourceForbidden("not allowed") }
        return nil
    } catch {
        return error
    }
}

private let signer = URLSigner(pairs: [URLSigner.Pair(key: Array("secret".utf8), salt: Array("hello".utf8))])
private let processor = ImageProcessor(configuration: ImageProcessor.Configuration())
private let allowList: [SourcePattern] = ["http://img.example/", "https://*.example:*/p/"].compactMap { try? SourcePattern(parsing: $0) }
