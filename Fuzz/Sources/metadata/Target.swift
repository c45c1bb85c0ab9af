import FuzzSupport
import Foundation
import WebImage

/// The metadata readers behind `webimage info`: byte 0 modulo 5 picks one, the rest is
/// its input.
///
/// 0. `EXIFOrientationReader` on a TIFF-structured EXIF block (JPEG's APP1, PNG's `eXIf`,
///    WebP's `EXIF` chunk), the check and orientation reset `ImageMetadata.read` does
///    to a kept block, `ImageMetadata.copyrightOnly` (the server's `keep_copyright`)
///    and `TIFFEXIFBlock` (a TIFF file's EXIF gathered into a block), whose outputs must
///    be their own fixed points;
/// 1. `JPEGCoder.xmpOrientation` on an XMP packet;
/// 2. `HEIFPropertyReader` (the primary item's `irot`/`imir` and `ispe`) on a HEIF/AVIF file;
/// 3. what `webimage info` prints: `AnimatedImage(data:)` and its properties, then the
///    decode it describes the colour and metadata from (first frame, 16 × 16, metadata
///    read, profile kept);
/// 4. an ICC profile (every decoder hands an embedded one to Little CMS): `ColorProfile`'s
///    checks, then `ColorTransform` for RGB and for CMYK pixels, each run over a few pixels.
///
/// The readers get libFuzzer's own buffer, whose end is the end of a heap allocation, so
/// AddressSanitizer sees a read one byte past the input. XMP is read only for the
/// orientation (1). Little CMS itself is Debian's, uninstrumented: a memory error inside it
/// shows only when it crashes or touches our buffers.
///
/// Checked for `info`: the poster frame has the size the properties declare, and there is
/// a duration per frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let rest = UnsafeBufferPointer(start: start + 1, count: count - 1)
    switch start[0] % 5 {
    case 0:
        _ = EXIFOrientationReader.orientation(inTIFF: rest)
        _ = ImageMetadata.read(exif: UnsafeRawBufferPointer(rest), xmp: nil, resetOrientation: true)
        let credit = ImageMetadata(exif: Data(buffer: rest)).copyrightOnly
        if let exif = credit.exif {
            Fuzz.check(ImageMetadata(exif: exif).copyrightOnly == credit, "copyrightOnly of its own output differs")
        }
        if let block = TIFFEXIFBlock.make(fromFile: UnsafeRawBufferPointer(rest)) {
            let again = block.withUnsafeBytes { TIFFEXIFBlock.make(fromFile: $0) }
            Fuzz.check(again == block, "TIFFEXIFBlock of its own output differs")
        }
    case 1:
        _ = JPEGCoder.xmpOrientation(rest)
    case 2:
        let raw = UnsafeRawBufferPointer(rest)
        _ = HEIFPropertyReader.orientation(in: raw)
        if let size = HEIFPropertyReader.size(in: raw) {
            Fuzz.check(size.width >= 0 && size.height >= 0, "a negative ispe size \(size)")
        }
    case 4:
        guard let profile = try? ColorProfile(iccData: Data(buffer: rest)) else { return 0 }
        for input in [ColorTransform.Input.rgba, .cmyk, .invertedCMYK] {
            guard let transform = try? ColorTransform(profile: profile, input: input) else { continue }
            var pixels = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            pixels.withUnsafeMutableBufferPointer { transform.convert($0) }
        }
    default:
        var described = Fuzz.options
        described.decodeFirstFrameOnly = true
        described.thumbnailPixelSize = ImageSize(width: 16, height: 16)
        described.readsMetadata = true
        described.keepsColorProfile = true
        _ = try? Fuzz.coders.decode(Data(buffer: rest), options: described)
        guard let image = try? AnimatedImage(data: Data(buffer: rest), options: Fuzz.options) else { return 0 }
        Fuzz.check(image.posterFrame.size == image.size, "poster \(image.posterFrame.size), declared \(image.size)")
        Fuzz.check(image.frameCount >= 1 && image.durations.count == image.frameCount, "\(image.frameCount) frames, \(image.durations.count) durations")
    }
    return 0
}
