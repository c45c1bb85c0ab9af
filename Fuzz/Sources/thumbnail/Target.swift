import FuzzSupport
import Foundation
import WebImage

/// A thumbnail decode at a fuzzed box: header bytes 0–3 are the box (each side 1–4096),
/// byte 4's bits choose `preserveAspectRatio`, `thumbnailCoversBox`, `applyOrientation`,
/// and whether the decode reads the metadata and keeps the colour profile (each coder's
/// EXIF, XMP and ICC gathering, otherwise skipped); the rest is the file. The result must respect the box as
/// `DecodeGeometry.thumbnailSize` promises: fitting, inside it; covering, inside it on at
/// least one side; ignoring the aspect ratio, inside it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzHeader(Fuzz.data(start, count), count: 5)
    let box = ImageSize(width: 1 + input.uint16(at: 0) % 4096, height: 1 + input.uint16(at: 2) % 4096)
    var options = Fuzz.options
    options.thumbnailPixelSize = box
    options.preserveAspectRatio = input.bytes[4] & 1 == 0
    options.thumbnailCoversBox = input.bytes[4] & 2 != 0
    options.applyOrientation = input.bytes[4] & 4 == 0
    options.readsMetadata = input.bytes[4] & 8 != 0
    options.keepsColorProfile = input.bytes[4] & 16 != 0
    guard let image = try? Fuzz.coders.decode(input.payload, options: options) else { return 0 }
    Fuzz.checkDecoded(image)
    let size = image.size
    if options.preserveAspectRatio && options.thumbnailCoversBox {
        Fuzz.check(size.width <= box.width || size.height <= box.height, "cover thumbnail \(size) for box \(box)")
    } else {
        Fuzz.check(size.width <= box.width && size.height <= box.height, "thumbnail \(size) outside box \(box)")
    }
    return 0
}
