import FuzzSupport
import Foundation
import WebImage

/// The `data:` URL parser (`DataURLLoader.payload(of:)`, what `DataURLLoader.load` runs on
/// the URL's text before decoding): the input as text, both as given and as `URL`
/// re-serialises it, must parse or throw `WebImageError.invalidURL`. Then a round trip:
/// the input's bytes written as a base64 `data:` URL (with line breaks, which are allowed)
/// and as a percent-encoded one must both give exactly those bytes back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Fuzz.data(start, count)
    let text = String(decoding: bytes, as: UTF8.self)
    var texts = [text]
    if let url = URL(string: text) { texts.append(url.absoluteString) }
    for candidate in texts {
        do {
            _ = try DataURLLoader.payload(of: candidate)
        } catch {
            guard case .invalidURL = error else {
                Fuzz.check(false, "payload(of:) threw \(error) for \(candidate.debugDescription)")
                return 0
            }
        }
    }

    let base64 = bytes.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
    let hex = Array("0123456789ABCDEF".utf8)
    var escaped: [UInt8] = []
    escaped.reserveCapacity(bytes.count * 3)
    for byte in bytes { escaped += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]] }
    let percent = String(decoding: escaped, as: UTF8.self)
    for (url, name) in [("data:image/png;base64," + base64, "base64"), ("data:application/octet-stream," + percent, "percent")] {
        let decoded = try? DataURLLoader.payload(of: url)
        Fuzz.check(decoded == bytes, "the \(name) round trip of \(bytes.count) bytes gave \(decoded?.count ?? -1)")
    }
    return 0
}
