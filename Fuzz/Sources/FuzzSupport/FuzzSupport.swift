import Foundation
import WebImage

/// What every target shares: the limits it decodes under, how it splits its input, and
/// how it reports a broken invariant.
public enum Fuzz {
    /// The decoders' pixel limit while fuzzing (all frames of one decode together, as the
    /// library counts it): one megapixel, 4 MiB of RGBA, the bound OSS-Fuzz's libjpeg-turbo
    /// target uses. The library's guard stays on, lower than its 100-megapixel default,
    /// because a decode's cost grows with its pixels, not with the bytes that declared
    /// them: a 1.5 KB file whose header says 4000 × 4000 runs every per-pixel loop (colour
    /// conversion, premultiplying, orientation) 16 million times, and those loops are
    /// instrumented. At 16 megapixels such inputs took most of the JPEG run's time (58 %
    /// in the colour-conversion loops, 255 inputs a second); an image of more than a
    /// megapixel reaches no code that a smaller one does not. libFuzzer's `-malloc_limit_mb`
    /// (Fuzz/run.sh) is set from it, at 64 MiB (sixteen times its 4 MiB of RGBA), so an
    /// allocation the limit should have refused is reported. `-rss_limit_mb` is not: it
    /// bounds the whole process at 2 GiB, of which an idle target under AddressSanitizer
    /// already holds about 470 MB and ASan's quarantine of freed memory up to 256 MiB.
    public static let pixelLimit = 1 << 20

    /// The library's coders and PDF's, which the library leaves out of its shared manager
    /// (poppler decodes a page's images at full size with no limit: for trusted documents
    /// only) but which every decoding run still feeds, for the memory errors it can find.
    public static let coders = CodersManager(coders: CodersManager.builtInCodersWithDocuments)

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
