import FuzzSupport
import Foundation
import WebImage

/// Format sniffing and a full decode through `CodersManager`, as every load does: the
/// input is a whole file; Fuzz/run.sh runs this target once per format, each with that
/// format's seeds and dictionary. A decoded image must be sound (`Fuzz.checkDecoded`)
/// and come from the coder of the sniffed format, with the one exception `AVIFCoder`
/// documents: a file whose major brand is the generic `mif1`/`msf1` (sniffed `.heif`) and
/// whose compatible brands list AVIF is AVIF's. (The first run found such a file, 425
/// bytes of `ftypmsf1` with `avif` among its brands, decoded as `.avif` while
/// `ImageFormat(sniffing:)` says `.heif`: the two follow their documentation; Fuzz/README.md
/// lists the disagreement.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Fuzz.data(start, count)
    let format = ImageFormat(sniffing: data)
    guard let image = try? CodersManager.shared.decode(data, options: Fuzz.options) else { return 0 }
    let genericHEIFAsAVIF = format == .heif && image.format == .avif
    Fuzz.check(image.format == format || genericHEIFAsAVIF, "sniffed \(format) but decoded \(image.format)")
    Fuzz.checkDecoded(image)
    return 0
}
