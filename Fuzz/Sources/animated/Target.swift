import FuzzSupport
import Foundation
import WebImage

/// Animated frame access in a fuzzed order through every `AnimatedImageCoder` (the lazy
/// frame sources of GIF, APNG, WebP and AVIF) that accepts the file: after an 8-byte
/// header, the rest is the file; header bytes 1–7 are frame indices, each taken modulo
/// frameCount + 2 and then minus one, so -1 and frameCount (out of range) are asked too;
/// bit 0 of byte 0 asks for a thumbnail.
///
/// Checked: an out-of-range index throws; every frame has the declared size; a frame
/// decoded twice, in any order, gives the same pixels (the sources decode sequentially
/// from a cursor and seek backwards by starting again).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzHeader(Fuzz.data(start, count), count: 8)
    let file = input.payload
    var options = Fuzz.options
    if input.bytes[0] & 1 != 0 { options.thumbnailPixelSize = ImageSize(width: 40, height: 40) }
    for type in AnimatedImage.coderTypes where type.canDecodeAnimation(file) {
        guard let coder = try? type.init(animatedImageData: file, options: options) else { continue }
        let properties = coder.properties
        Fuzz.check(properties.frameCount >= 1, "\(type) declares no frames")
        var seen: [Int: PixelBuffer] = [:]
        for byte in input.bytes.dropFirst() {
            let index = Int(byte) % (properties.frameCount + 2) - 1
            let frame: PixelBuffer
            do {
                frame = try coder.frame(at: index)
            } catch {
                continue
            }
            Fuzz.check(index >= 0 && index < properties.frameCount, "\(type) gave frame \(index) of \(properties.frameCount)")
            Fuzz.check(frame.size == properties.frameSize, "\(type) frame \(index) is \(frame.size), declared \(properties.frameSize)")
            Fuzz.check(frame.bytes.count == frame.width * frame.height * 4, "\(type) frame \(index) has \(frame.bytes.count) bytes")
            if let earlier = seen[index] {
                Fuzz.check(earlier == frame, "\(type) frame \(index) differs when decoded again")
            }
            seen[index] = frame
        }
    }
    return 0
}
