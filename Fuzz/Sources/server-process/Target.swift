import FuzzSupport
import Foundation
import WebImage
import WebImageServer

/// The image server's processing from untrusted options and untrusted bytes, as a request
/// that passed its checks reaches it: the input is a line of imgproxy processing options
/// with an optional output extension (`rs:fill:300:200:1/g:sm/bl:2@webp`, parsed by
/// `ProcessingPath`), a newline, then the source.
/// `ImageProcessor` decodes, resizes, crops, rotates, blurs, pads, flattens and encodes it
/// under limits scaled down for fuzzing: one megapixel of source (`Fuzz.pixelLimit`) and
/// results of at most 1,024 pixels a side, so that libFuzzer's 64 MiB allocation limit
/// catches any intermediate image the limits do not bound (a review found two: an enlarged
/// `fill` of a thin source, and the frames of an enlarged animation).
///
/// Checked: a result is in the format asked for (or the one the server chose) and sniffs
/// as that format; a refusal is a 4xx `ImageServerError` with a one-line reason, never a
/// 500. AVIF and HEIC results are encoded as WebP instead: their encoders take tenths of
/// a second per image and would starve the rest of the target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Fuzz.data(start, count)
    guard let newline = data.firstIndex(of: 0x0A) else { return 0 }
    let line = String(decoding: data[data.startIndex..<newline], as: UTF8.self)
    // `options@extension`, the extension (the output format) going where a plain source
    // URL carries it.
    let (options, suffix) = line.lastIndex(of: "@").map { (line[..<$0], line[$0...]) } ?? (Substring(line), "")
    guard !line.contains("/plain/"),
          let request = try? ProcessingPath(parsing: "/insecure/\(options)/plain/http://img.example/a\(suffix)")
    else { return 0 }
    var format = request.options.format
    if format == .avif || format == .heic || format == .heif { format = .webp }
    let source = Data(data[data.index(after: newline)...])
    do {
        let output = try processor.process(source, options: request.options, format: format)
        Fuzz.check(format == nil || output.format == format, "asked for \(String(describing: format)), got \(output.format)")
        Fuzz.check(ImageFormat(sniffing: output.data) == output.format, "a \(output.format) result sniffs as \(ImageFormat(sniffing: output.data))")
    } catch {
        Fuzz.check((400..<500).contains(error.status), "\(line.debugDescription) answered \(error.status) \(error.message)")
        Fuzz.check(!error.message.isEmpty && !error.message.contains(where: \.isNewline), "\(line.debugDescription) answered \(error.message.debugDescription)")
    }
    return 0
}

private let processor: ImageProcessor = {
    var configuration = ImageProcessor.Configuration()
    configuration.maxSourcePixels = Fuzz.pixelLimit
    configuration.maxResultDimension = 1_024
    return ImageProcessor(configuration: configuration)
}()
