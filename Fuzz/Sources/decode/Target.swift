import FuzzSupport
import Foundation
import WebImage

/// Format sniffing and a full decode through a `CodersManager`, as every load does: the
/// input is a whole file; Fuzz/run.sh runs this target once per format, each with that
/// format's seeds and dictionary. A decoded image must be sound (`Fuzz.checkDecoded`)
/// and come from the coder of the sniffed format. (The first run found a file, 425 bytes
/// of `ftypmsf1` with `avif` among its compatible brands, sniffed `.heif` and decoded as
/// `.avif`; sniffing now reads the compatible brands of the generic HEIF brands, and the
/// file is a regression fixture of `ImageFormatTests`.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Fuzz.data(start, count)
    let format = ImageFormat(sniffing: data)
    guard let image = try? Fuzz.coders.decode(data, options: Fuzz.options) else { return 0 }
    Fuzz.check(image.format == format, "sniffed \(format) but decoded \(image.format)")
    Fuzz.checkDecoded(image)
    return 0
}
