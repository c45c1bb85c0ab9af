import FuzzSupport
import Foundation
import WebImage

/// Progressive decoding as a download feeds it: the rest of the input after an 8-byte
/// header is the file, handed to the format's `ProgressiveImageCoder` in growing prefixes
/// whose steps the header chooses (step i adds `1 + header[i % 8] * 37` bytes, so steps
/// run from 1 byte to about 9 KiB), with a partial image asked after each. Bit 0 of byte
/// 0 restarts the download once halfway (shorter data than before, which the protocol
/// allows); bit 1 asks for a thumbnail.
///
/// Checked, as `ProgressiveImageCoder` documents: partial images are marked incremental
/// and sound; the final image is not incremental and is exactly the one-shot decode of the
/// same bytes with the same options (same size and pixels, or both fail).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzHeader(Fuzz.data(start, count), count: 8)
    let file = input.payload
    guard let decoder = CodersManager.shared.progressiveDecoder(for: file) else { return 0 }
    var options = Fuzz.options
    if input.bytes[0] & 2 != 0 { options.thumbnailPixelSize = ImageSize(width: 64, height: 48) }
    var received = 0
    var step = 0
    var restarted = input.bytes[0] & 1 == 0
    // At most 64 partial decodes, so a large file cannot turn one input into a timeout.
    while received < file.count, step < 64 {
        received = min(file.count, received + 1 + Int(input.bytes[step % 8]) * 37)
        step += 1
        if !restarted, received > file.count / 2 {
            restarted = true
            received = file.count / 4
        }
        decoder.update(file.prefix(received), isFinal: false)
        if let partial = try? decoder.currentImage(options: options) {
            Fuzz.check(partial.isIncremental, "a partial image not marked incremental")
            Fuzz.checkDecoded(partial)
        }
    }
    decoder.update(file, isFinal: true)
    let final = Result { try decoder.currentImage(options: options) }
    let oneShot = Result { try Fuzz.coders.decode(file, options: options) }
    switch (final, oneShot) {
    case (.success(let image?), .success(let expected)):
        Fuzz.check(!image.isIncremental, "the final image is marked incremental")
        Fuzz.checkDecoded(image)
        Fuzz.check(image.frames == expected.frames, "the final image \(image.size) differs from the one-shot decode \(expected.size)")
    case (.success(nil), .success(let expected)):
        Fuzz.check(false, "no final image, but the one-shot decode gives \(expected.size)")
    case (.success(let image?), .failure(let error)):
        Fuzz.check(false, "a final image \(image.size), but the one-shot decode throws \(error)")
    case (.failure(let error), .success(let expected)):
        Fuzz.check(false, "the final decode throws \(error), but the one-shot decode gives \(expected.size)")
    default:
        break
    }
    return 0
}
