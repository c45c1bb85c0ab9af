import FuzzSupport
import Foundation
import WebImage

/// Animated frame access in a fuzzed order through every `AnimatedImageCoder` (the lazy
/// frame sources of GIF, APNG, WebP and AVIF) that accepts the file: after an 8-byte
/// header, the rest is the file; header bytes 1–7 are frame indices, each taken modulo
/// frameCount + 2 and then minus one, so -1 and frameCount (out of range) are asked too.
/// Byte 0 shapes the output: bit 0 asks for a thumbnail in a box whose side bits 1–3 pick
/// from ``boxSides``, bit 4 covers the box instead of fitting it, bit 5 lets go of the
/// aspect ratio, bit 6 sets a scale-down limit that bits 1–3 pick from ``limits``.
///
/// Checked: an out-of-range index throws; every frame has the declared size; a frame
/// decoded twice, in any order, gives the same pixels (the sources decode sequentially
/// from a cursor and seek backwards by starting again); with a scale-down limit that
/// leaves each frame a pixel, all the frames together fit it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzHeader(Fuzz.data(start, count), count: 8)
    let file = input.payload
    var options = Fuzz.options
    let shape = input.bytes[0]
    let pick = Int(shape >> 1) & 7
    if shape & 1 != 0 {
        options.thumbnailPixelSize = ImageSize(width: boxSides[pick], height: boxSides[7 - pick])
        options.thumbnailCoversBox = shape & 16 != 0
        options.preserveAspectRatio = shape & 32 == 0
    }
    if shape & 64 != 0 { options.scaleDownLimitBytes = limits[pick] }
    for type in AnimatedImage.coderTypes where type.canDecodeAnimation(file) {
        guard let coder = try? type.init(animatedImageData: file, options: options) else { continue }
        let properties = coder.properties
        Fuzz.check(properties.frameCount >= 1, "\(type) declares no frames")
        if let limit = options.scaleDownLimitBytes, limit / 4 / properties.frameCount > 0 {
            let bytes = properties.frameSize.width * properties.frameSize.height * 4 * properties.frameCount
            Fuzz.check(bytes <= limit, "\(type): \(properties.frameCount) frame(s) of \(properties.frameSize) exceed \(limit) bytes")
        }
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

/// Thumbnail box sides: one pixel, odd and small sizes, the size the target used alone
/// before (40), and sides larger than most fuzzed canvases (never scaled up).
private let boxSides = [1, 3, 16, 40, 97, 256, 1000, 4096]

/// Scale-down limits in bytes, from below one pixel (4) to more than the fuzzer's inputs
/// can declare within the pixel limit.
private let limits = [3, 4, 64, 400, 4096, 40000, 1 << 20, 64 << 20]
