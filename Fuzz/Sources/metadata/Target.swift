import FuzzSupport
import Foundation
import WebImage

/// The metadata readers behind `webimage info`: byte 0 modulo 4 picks one, the rest is
/// its input.
///
/// 0. `EXIFOrientationReader` on a TIFF-structured EXIF block (JPEG's APP1, PNG's `eXIf`,
///    WebP's `EXIF` chunk), and the check and orientation reset `ImageMetadata.read` does
///    to a kept block;
/// 1. `JPEGCoder.xmpOrientation` on an XMP packet;
/// 2. `HEIFPropertyReader` (the primary item's `irot`/`imir` and `ispe`) on a HEIF/AVIF file;
/// 3. what `webimage info` prints: `AnimatedImage(data:)` and its properties.
///
/// The readers get libFuzzer's own buffer, whose end is the end of a heap allocation, so
/// AddressSanitizer sees a read one byte past the input. There is no ICC or XMP *profile*
/// reader to fuzz: no coder applies an ICC profile, and XMP is read only for the orientation.
///
/// Checked for `info`: the poster frame has the size the properties declare, and there is
/// a duration per frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let rest = UnsafeBufferPointer(start: start + 1, count: count - 1)
    switch start[0] % 4 {
    case 0:
        _ = EXIFOrientationReader.orientation(inTIFF: rest)
        _ = ImageMetadata.read(exif: UnsafeRawBufferPointer(rest), xmp: nil, resetOrientation: true)
    case 1:
        _ = JPEGCoder.xmpOrientation(rest)
    case 2:
        let raw = UnsafeRawBufferPointer(rest)
        _ = HEIFPropertyReader.orientation(in: raw)
        if let size = HEIFPropertyReader.size(in: raw) {
            Fuzz.check(size.width >= 0 && size.height >= 0, "a negative ispe size \(size)")
        }
    default:
        guard let image = try? AnimatedImage(data: Data(buffer: rest), options: Fuzz.options) else { return 0 }
        Fuzz.check(image.posterFrame.size == image.size, "poster \(image.posterFrame.size), declared \(image.size)")
        Fuzz.check(image.frameCount >= 1 && image.durations.count == image.frameCount, "\(image.frameCount) frames, \(image.durations.count) durations")
    }
    return 0
}
