import FuzzSupport
import Foundation
import WebImage

/// The transform-spec grammar (`TransformSpec`, what `--transform` reads): the input as
/// text must parse or throw `TransformSpec.ParseError` with a one-line reason; a parsed
/// spec keeps its text and has one transformer per `;`-separated step, and its chain's
/// key is not empty (the key names cached transformed images).
///
/// A parsed chain is then run on a 9 × 7 image, so the transformers meet the parsed
/// numbers (NaN and infinity are refused by the parser; huge radii, angles and crop
/// rectangles are not). Only chains whose resizes stay within 256 pixels a side are run:
/// the grammar accepts up to 65535 × 65535 by design (its user asked for it), and making
/// those pixels is the user's request, not a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: Fuzz.data(start, count), as: UTF8.self)
    let spec: TransformSpec
    do {
        spec = try TransformSpec(text)
    } catch let error as TransformSpec.ParseError {
        Fuzz.check(!error.description.isEmpty, "an empty parse error for \(text.debugDescription)")
        return 0
    } catch {
        Fuzz.check(false, "TransformSpec threw \(error) for \(text.debugDescription)")
        return 0
    }
    Fuzz.check(spec.text == text, "the spec's text changed")
    Fuzz.check(spec.transformers.count == text.split(separator: ";", omittingEmptySubsequences: false).count,
               "\(spec.transformers.count) transformers for \(text.debugDescription)")
    Fuzz.check(!spec.transformer.key.isEmpty, "an empty key for \(text.debugDescription)")

    let small = spec.transformers.allSatisfy { step in
        guard let resize = step as? ResizeTransformer else { return true }
        return resize.size.width <= 256 && resize.size.height <= 256
    }
    guard small, spec.transformers.count <= 8 else { return 0 }
    let image = Image(pixels: source)
    guard let result = try? spec.transformer.transform(image) else { return 0 }
    Fuzz.checkDecoded(result, pixelLimit: Int.max)
    return 0
}

/// A small image with a gradient and some transparency, so every transformer has work.
private let source: PixelBuffer = {
    let width = 9, height = 7
    var bytes: [UInt8] = []
    for y in 0..<height {
        for x in 0..<width { bytes += [UInt8(x * 28), UInt8(y * 36), 128, UInt8(255 - x * 10)] }
    }
    return (try? PixelBuffer(width: width, height: height, bytes: bytes)) ?? PixelBuffer(width: width, height: height, filling: RGBAColor(red: 1, green: 2, blue: 3, alpha: 4))
}()
