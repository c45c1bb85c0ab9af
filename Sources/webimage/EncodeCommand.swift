import ArgumentParser
import Foundation
import WebImage

/// `webimage encode FILE -o OUT [--format F]`: re-encode an image, in the format `--format`
/// or the output's extension names.
struct EncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Decode an image and encode it as JPEG, PNG, GIF, WebP, AVIF, HEIC, JPEG XL or BMP."
    )

    @OptionGroup var files: ConversionFiles

    // The values are listed by the help from `EncodableFormat`, the parser's own list.
    @Option(help: "Output format (default: from the output's extension, as magick and vips take it).")
    var format: EncodableFormat?

    @Option(help: "Quality from 0 to 100 for lossy formats (default 100).")
    var quality: Double = 100

    @Flag(help: "Encode losslessly where the format allows (WebP, AVIF, JPEG XL).")
    var lossless = false

    @Option(name: .customLong("max-file-size"), help: "Largest output size in bytes; quality is lowered to fit.")
    var maxFileSize: Int?

    @Option(name: .customLong("max-pixel-size"), help: "Scale down to fit \(ImageSize.argumentHelp) pixels.")
    var maxPixelSize: ImageSize?

    @OptionGroup var metadata: MetadataOption

    func validate() throws {
        try validateQuality(quality)
        if let maxFileSize, maxFileSize <= 0 { throw ValidationError("--max-file-size must be positive") }
        _ = try outputFormat()
    }

    /// `--format`, else the format the output's extension names. A known image extension
    /// that differs from `--format` is refused: `-o a.jpg --format webp` wrote WebP bytes
    /// under a JPEG name (decode refuses the same mismatch).
    func outputFormat() throws -> ImageFormat {
        let suffix = files.outputExtension
        // `.heif` names the container HEIC is written in: the same files.
        let named = suffix.flatMap(ImageFormat.init(argument:)).map { $0 == .heif ? .heic : $0 }
        if let format {
            if let named, named != format.format {
                throw ValidationError("-o \(files.output) names \(suffix ?? "") but --format is \(format.format.rawValue): make them agree")
            }
            return format.format
        }
        guard let suffix, let named = EncodableFormat(argument: suffix == "heif" ? "heic" : suffix) else {
            throw ValidationError("--format is needed: the output's name gives no format encode can write (\(EncodableFormat.allValueStrings.joined(separator: ", ")))")
        }
        return named.format
    }

    func run() throws {
        try reportingFailures {
            var decodeOptions = ImageCoderOptions()
            try metadata.applyToDecode(&decodeOptions)
            let image = try fileCoders.decode(files.read(), options: decodeOptions)
            var options = ImageCoderOptions()
            metadata.applyToEncode(&options)
            options.compressionQuality = quality / 100
            options.lossless = lossless
            options.maxFileSize = maxFileSize
            options.maxPixelSize = maxPixelSize
            let encoded = try CodersManager.shared.encode(image, as: outputFormat(), options: options)
            try files.write(encoded)
            // The limit is a best effort, as SDWebImage's: the smallest output is written,
            // but the user is told it is over (lossless formats have no quality to lower).
            if let maxFileSize, encoded.count > maxFileSize {
                StandardStreams.error("webimage: warning: the smallest output is \(encoded.count) bytes, over --max-file-size \(maxFileSize)\n")
            }
        }
    }
}
