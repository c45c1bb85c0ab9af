import FuzzSupport
import Foundation
import WebImage

/// A decode with a fuzzed `scaleDownLimitBytes`: header bytes 0–3 are the limit (little
/// endian, then shifted right by byte 4 mod 32 so that small limits are as common as
/// large ones); the rest is the file. All frames together must fit the limit whenever it
/// leaves every frame at least a pixel (`DecodeGeometry.scaledDown`'s promise).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzHeader(Fuzz.data(start, count), count: 5)
    let limit = input.uint32(at: 0) >> (Int(input.bytes[4]) % 32)
    var options = Fuzz.options
    options.scaleDownLimitBytes = limit
    guard let image = try? Fuzz.coders.decode(input.payload, options: options) else { return 0 }
    Fuzz.checkDecoded(image)
    let frames = image.frameCount
    let pixels = image.size.width * image.size.height * frames
    if limit > 0, limit / 4 / frames > 0 {
        Fuzz.check(pixels * 4 <= limit, "\(frames) frame(s) of \(image.size) exceed the limit of \(limit) bytes")
    }
    return 0
}
