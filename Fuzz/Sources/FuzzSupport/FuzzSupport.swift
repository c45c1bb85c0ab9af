import Foundation
import WebImage

/// What every target shares: the limits it decodes under, how it splits its input, and
/// how it reports a broken invariant.
public enum Fuzz {
    /// The decoders' pixel limit while fuzzing (all frames of one decode together, as the
    /// library counts it). The library's guard stays on, lower than its 100-megapixel
    /// default so that one input costs at most 64 MiB of RGBA: libFuzzer's `-rss_limit_mb`
    /// and `-malloc_limit_mb` (Fuzz/run.sh) are set from it, so an allocation the limit
    /// should have refused is reported, and a decode near the limit stays far below the
    /// timeout.
    public static let pixelLimit = 16_000_000

    /// Decoding options with the fuzzing limit.
    public static var options: ImageCoderOptions {
        var options = ImageCoderOptions()
        options.pixelLimit = pixelLimit
        return options
    }

    /// The input as `Data` (libFuzzer passes a null pointer for the empty input).
    public static func data(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Data {
        guard let start, count > 0 else { return Data() }
        return Data(bytes: start, count: count)
    }

    /// A broken invariant: crashes, so libFuzzer saves the input and reports it. A thrown
    /// error is never a finding (hostile bytes may be refused); a wrong answer is.
    public static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz invariant broken: \(message())") }
    }

    /// Every frame of a decoded image: a buffer of exactly width × height × 4 bytes, all
    /// frames the same size, together within `pixelLimit`.
    public static func checkDecoded(_ image: Image, pixelLimit: Int = Fuzz.pixelLimit) {
        check(!image.frames.isEmpty, "an image without frames")
        var total = 0
        for frame in image.frames {
            let pixels = frame.pixels
            check(pixels.width > 0 && pixels.height > 0, "an empty frame \(pixels.width)x\(pixels.height)")
            check(pixels.bytes.count == pixels.width * pixels.height * 4, "frame bytes \(pixels.bytes.count) for \(pixels.width)x\(pixels.height)")
            check(pixels.size == image.size, "frame size \(pixels.size) differs from the first frame's \(image.size)")
            total += pixels.width * pixels.height
        }
        check(total <= pixelLimit, "\(total) pixels decoded past the limit \(pixelLimit)")
    }
}

/// The leading bytes of an input as parameters, the rest as the payload: the seed
/// generator (Fuzz/make-seeds.py) prefixes each fixture with such a header.
public struct FuzzHeader {
    public let bytes: [UInt8]
    public let payload: Data

    /// Splits `data` into `count` header bytes (zeros when the input is shorter) and the rest.
    public init(_ data: Data, count: Int) {
        var head = [UInt8](data.prefix(count))
        head += [UInt8](repeating: 0, count: count - head.count)
        bytes = head
        payload = data.count > count ? data.dropFirst(count) : Data()
    }

    /// Header bytes `index` and `index + 1`, little-endian.
    public func uint16(at index: Int) -> Int {
        Int(bytes[index]) | Int(bytes[index + 1]) << 8
    }

    /// Header bytes `index` to `index + 3`, little-endian.
    public func uint32(at index: Int) -> Int {
        uint16(at: index) | uint16(at: index + 2) << 16
    }
}
